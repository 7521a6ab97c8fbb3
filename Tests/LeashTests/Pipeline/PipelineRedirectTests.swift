import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects in virtual time, over the stub transport: each hop is a request of the same
/// attempt, under the execution's one deadline.
final class PipelineRedirectTests: PipelineTestCase {
    private var scheduler: TestScheduler!
    private var transport: StubTransport!

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0)
        transport = StubTransport(scheduler: scheduler)
    }

    override func tearDown() {
        scheduler = nil
        transport = nil
        super.tearDown()
    }

    private func hop(to location: String, after seconds: Int) -> StubResponse {
        StubResponse(status: 302, headers: ["Location": location], delay: TimeInterval(seconds))
    }

    func testHops_eachTakeTheirTime_andTheValueComesAfterTheLast() throws {
        transport.stub(path: "/v1/users/1", hop(to: "/v1/users/one", after: 2))
        transport.stub(path: "/v1/users/one", hop(to: "/v1/people/1", after: 3))
        transport.stub(path: "/v1/people/1", .json(specAliceJSON, delay: 4))
        let client = try makePipelineClient(transport, scheduler: scheduler)

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "responseReceived(302, 1) @ 202",
                "requestSent(1) @ 202", "responseReceived(302, 1) @ 205", "requestSent(1) @ 205",
                "downloadProgress(23/23) @ 209", "responseReceived(200, 1) @ 209",
                "value(SpecUser(id: 1, name: \"Alice\"), network) @ 209", "completed @ 209",
            ])
        XCTAssertEqual(transport.requests.map { $0.url?.path }, ["/v1/users/1", "/v1/users/one", "/v1/people/1"])
    }

    func testTheTimeout_boundsEveryHopTogether() throws {
        transport.stub(path: "/v1/users/1", hop(to: "/v1/users/2", after: 4))
        transport.stub(path: "/v1/users/2", .json(specAliceJSON, delay: 4))
        let client = try makePipelineClient(transport, scheduler: scheduler) { $0.timeout(6) }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        guard let last = observer.events.last, case .error(let error) = last.value,
            case .timeout(6)? = error as? LeashError
        else { return XCTFail("expected a timeout, got \(pipelineTimeline(observer))") }
        XCTAssertEqual(last.time, 206, "4 s for the first hop and 2 of the second's 4")
    }

    func testDisposingDuringAHop_sendsNothingMore() throws {
        transport.stub(path: "/v1/users/1", hop(to: "/v1/users/2", after: 2))
        transport.stub(path: "/v1/users/2", .json(specAliceJSON, delay: 5))
        let client = try makePipelineClient(transport, scheduler: scheduler)

        let observer = scheduler.start(disposed: 204) { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertFalse(pipelineTimeline(observer).contains { $0.hasPrefix("value") })
        scheduler.advanceTo(300)
        XCTAssertEqual(transport.requests.count, 2)
    }
}
