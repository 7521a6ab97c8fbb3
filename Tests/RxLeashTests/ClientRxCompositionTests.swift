import Foundation
import LeashTesting
import RxLeash
import RxTesting
import LeashTestSupport
import XCTest

/// Requests composed with Rx operators, in virtual time: `flatMapLatest` cancels the
/// request in flight, `zip` waits for both, `flatMap` chains; nothing is left alive.
final class ClientRxCompositionTests: ClientRxStubCase {
    private var scheduler: TestScheduler!
    private var transport: StubTransport!

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0)
        transport = StubTransport(scheduler: scheduler)
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        transport.stub(path: "/v1/users/2", .json(specBobJSON, delay: 5))
    }

    override func tearDown() {
        scheduler = nil
        transport = nil
        super.tearDown()
    }

    func testFlatMapLatest_newInputCancelsTheRequestInFlight() throws {
        let client = try makeClientRxClient(transport, scheduler: scheduler)
        let ids = scheduler.createHotObservable([.next(210, 1), .next(212, 2), .completed(300)])

        let observer = scheduler.start {
            ids.flatMapLatest { id in client.rx.execute(ClientRxGetUser(id: id)) }
        }

        // User 1 was due at 215; user 2's request replaced it at 212.
        XCTAssertEqual(observer.events, [.next(217, specBob), .completed(300)])
        XCTAssertEqual(transport.requests.map { $0.url?.path }, ["/v1/users/1", "/v1/users/2"])
    }

    func testZip_ofTwoRequests_emitsThePairWhenBothArrived() throws {
        transport.stub(path: "/v1/users/2", .json(specBobJSON, delay: 8))
        let client = try makeClientRxClient(transport, scheduler: scheduler)

        let observer = scheduler.start {
            Observable.zip(client.rx.execute(ClientRxGetUser(id: 1)), client.rx.execute(ClientRxGetUser(id: 2)))
                .map { "\($0.name) & \($1.name)" }
        }

        XCTAssertEqual(observer.events, [.next(208, "Alice & Bob"), .completed(208)])
    }

    func testFlatMap_chain_secondRequestUsesTheFirstsValue() throws {
        let client = try makeClientRxClient(transport, scheduler: scheduler)

        let observer = scheduler.start {
            client.rx.execute(ClientRxGetUser(id: 1))
                .flatMap { user in client.rx.execute(ClientRxGetUser(id: user.id + 1)) }
        }

        XCTAssertEqual(observer.events, [.next(210, specBob), .completed(210)])
    }

    func testFlatMap_chainDisposedMidway_cancelsTheSecondRequest() throws {
        let client = try makeClientRxClient(transport, scheduler: scheduler)

        let observer = scheduler.start(disposed: 207) {
            client.rx.single(ClientRxGetUser(id: 1))
                .flatMap { user in client.rx.single(ClientRxGetUser(id: user.id + 1)) }
        }
        scheduler.advanceTo(2000)

        XCTAssertEqual(observer.events, [])
        XCTAssertEqual(transport.requests.count, 2, "the second request was sent at 205, then cancelled")
    }
}
