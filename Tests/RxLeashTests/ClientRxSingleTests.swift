import Foundation
import LeashTesting
import RxLeash
import RxTesting
import LeashTestSupport
import XCTest

/// `client.rx.single`, and `client.rx.response(…).takeLast(1).asSingle()`: one-shot calls
/// as `Single`s.
final class ClientRxSingleTests: VirtualTimeTestCase {
    private func makeClient(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makeClientRxClient(transport, scheduler: scheduler, configure: configure)
    }

    func testSingle_succeedsWithTheValueWhenTheExecutionCompletes() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient()

        let observer = scheduler.start { client.rx.single(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events, [.next(205, specAlice), .completed(205)])
    }

    func testSingle_answeredWhileSubscribing_succeeds() throws {
        // Without a delay the stub answers inside `subscribe`: the single succeeds before
        // its subscription is even returned.
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try makeClient()

        let observer = scheduler.start { client.rx.single(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events, [.next(200, specAlice), .completed(200)])
    }

    func testSingle_cacheThenNetwork_succeedsWithTheNetworksValue() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient { $0.add(interceptor: ClientRxCacheInterceptor(specBobJSON)) }

        let observer = scheduler.start { client.rx.single(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events, [.next(205, specAlice), .completed(205)])
    }

    func testSingle_typedEndpoint_infersTheType() throws {
        transport.stub(path: "/v1/users/2", .json(specBobJSON, delay: 1))
        let client = try makeClient()
        let bob: Single<SpecUser> = client.rx.single(ClientRxGetUser(id: 2))

        let observer = scheduler.start { bob }

        XCTAssertEqual(observer.events, [.next(201, specBob), .completed(201)])
    }

    func testSingle_customSerializer() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 1))
        let client = try makeClient()

        let observer = scheduler.start { client.rx.single(ClientRxEndpoint(), serializer: StringResponseSerializer()) }

        XCTAssertEqual(observer.events, [.next(201, specAliceJSON), .completed(201)])
    }

    func testSingle_failure_failsWithTheLeashError() throws {
        transport.stub(path: "/v1/users/1", .status(500, delay: 4))
        let client = try makeClient()

        let observer = scheduler.start { client.rx.single(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events.count, 1)
        XCTAssertEqual(observer.events.first?.time, 204)
        XCTAssertEqual((clientRxError(observer) as? LeashError)?.statusCode, 500)
    }

    func testSingle_executionWithoutAValue_failsWithInvalidResponse() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 2))
        let client = try makeClient { $0.add(interceptor: ClientRxDropEverything()) }

        let observer = scheduler.start { client.rx.single(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events.first?.time, 202)
        guard case .invalidResponse? = clientRxError(observer) as? LeashError else {
            return XCTFail("expected LeashError.invalidResponse, got \(observer.events)")
        }
    }

    func testResponseTakeLastAsSingle_carriesTheDetailsOfTheLastValue_andJustValueDropsThem() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 3))
        let client = try makeClient { $0.add(interceptor: ClientRxCacheInterceptor(specBobJSON)) }

        let details = scheduler.start {
            client.rx.response(ClientRxEndpoint(), type: SpecUser.self).takeLast(1).asSingle().map {
                "\($0.value.name) \($0.source)"
            }
        }
        let values = scheduler.start(created: 1100, subscribed: 1200, disposed: 2000) {
            client.rx.response(ClientRxGetUser(id: 1)).takeLast(1).asSingle().justValue()
        }
        let serialized = scheduler.start(created: 2100, subscribed: 2200, disposed: 3000) {
            client.rx.response(ClientRxEndpoint(), serializer: StringResponseSerializer()).takeLast(1).asSingle().map {
                $0.statusCode
            }
        }

        XCTAssertEqual(details.events, [.next(203, "Alice network"), .completed(203)])
        XCTAssertEqual(values.events, [.next(1203, specAlice), .completed(1203)])
        XCTAssertEqual(serialized.events, [.next(2203, 200), .completed(2203)])
    }

    func testSingle_disposedBeforeTheResponse_emitsNothing() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClient()

        let observer = scheduler.start(disposed: 202) { client.rx.single(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(observer.events, [])
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testSingle_zipOfTwoCalls_succeedsWhenTheSlowerOneDoes() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 3))
        transport.stub(path: "/v1/users/2", .json(specBobJSON, delay: 7))
        let client = try makeClient()

        let observer = scheduler.start {
            Single.zip(client.rx.single(ClientRxGetUser(id: 1)), client.rx.single(ClientRxGetUser(id: 2)))
                .map { "\($0.name) & \($1.name)" }
        }

        XCTAssertEqual(observer.events, [.next(207, "Alice & Bob"), .completed(207)])
    }
}
