import Dispatch
import Foundation
import Leash
import LeashTesting
import Rx
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The timeout bounds the whole execution, from subscription to its end, whatever holds
/// it up: an interceptor that never calls back, a transport that hangs, retries.
final class PipelineTimeoutTests: PipelineTestCase {
    private var scheduler: TestScheduler!
    private var transport: StubTransport!
    private var held: PipelineHeldChains!

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0)
        transport = StubTransport(scheduler: scheduler)
        held = PipelineHeldChains()
    }

    override func tearDown() {
        // A silent interceptor's chain stays alive while the interceptor keeps it.
        held.releaseAll()
        scheduler = nil
        transport = nil
        held = nil
        super.tearDown()
    }

    private func client(timeout: TimeInterval?, _ interceptors: [Interceptor] = []) throws -> Client {
        try makePipelineClient(transport, scheduler: scheduler) { builder in
            if let timeout { builder.timeout(timeout) }
            builder.interceptors(interceptors)
        }
    }

    private func assertTimeout(
        _ observer: TestableObserver<ExecutionEvent<SpecUser>>, seconds: TimeInterval, at time: TestTime,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let last = observer.events.last, case .error(let error) = last.value else {
            return XCTFail("expected an error, got \(pipelineTimeline(observer))", file: file, line: line)
        }
        guard case .timeout(let limit)? = error as? LeashError else {
            return XCTFail("expected .timeout, got \(error)", file: file, line: line)
        }
        XCTAssertEqual(limit, seconds, file: file, line: line)
        XCTAssertEqual(last.time, time, "the timeout fires exactly on time", file: file, line: line)
        XCTAssertEqual(
            "\(error)", "No response within \(seconds) s.", "the message says what happened", file: file, line: line)
    }

    func testTimeout_executionInterceptorNeverCallsBack_failsExactlyAtTheTimeout() throws {
        let held = self.held!
        let client = try client(timeout: 10, [PipelineExecutionInterceptor { held.hold($0) }])

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        assertTimeout(observer, seconds: 10, at: 210)
        XCTAssertEqual(pipelineTimeline(observer).first, "requestPrepared(1) @ 200")
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testTimeout_interceptorCallingBackAfterTheTimeout_sendsNothing() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let held = self.held!
        let client = try client(timeout: 10, [PipelineExecutionInterceptor { held.hold($0) }])

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }
        held.last?.proceed()

        assertTimeout(observer, seconds: 10, at: 210)
        XCTAssertTrue(transport.requests.isEmpty, "a late proceed() must not reach the network")
    }

    func testTimeout_completionInterceptorNeverCallsBack_countsFromTheStartNotFromTheResponse() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 4))
        let held = self.held!
        let client = try client(timeout: 10, [PipelineCompletionInterceptor { chain, _ in held.hold(chain) }])

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        assertTimeout(observer, seconds: 10, at: 210)
        XCTAssertEqual(held.count, 1)
    }

    func testTimeout_transportThatHangs_isCutOffAndCancelled() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 60))
        let client = try client(timeout: 10)

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        assertTimeout(observer, seconds: 10, at: 210)
        XCTAssertEqual(
            pipelineTimeline(observer).dropLast(), ["requestPrepared(1) @ 200", "requestSent(1) @ 200"],
            "nothing arrives after the timeout")
    }

    func testTimeout_endpointTimeout_overridesTheManagers() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 60))
        let client = try client(timeout: 10)

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(timeout: 3), as: SpecUser.self) }

        assertTimeout(observer, seconds: 3, at: 203)
    }

    func testTimeout_responseJustBeforeTheTimeout_completesNormally() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 9))
        let client = try client(timeout: 10)

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            pipelineTimeline(observer).suffix(2), ["value(\(specAlice), network) @ 209", "completed @ 209"])
    }

    func testTimeout_afterCachedValue_theHangingNetworkStillTimesOut() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON, delay: 60))
        let client = try client(
            timeout: 10,
            [
                PipelineExecutionInterceptor { chain in
                    chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                    chain.proceed()
                }
            ])

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [specAlice])
        assertTimeout(observer, seconds: 10, at: 210)
    }

    func testTimeout_coversRetries_theDeadlineDoesNotRestartPerAttempt() throws {
        transport.stub(path: "/v1/users/1", .status(503))
        let scheduler = self.scheduler!
        let client = try client(
            timeout: 10,
            [
                PipelineCompletionInterceptor { chain, _ in
                    // Each retry waits 4 ticks: attempts start at 200, 204, 208, 212.
                    PipelineCallBack.virtual(scheduler, ticks: 4).run {
                        do { try chain.retry() } catch { chain.proceed() }
                    }
                }
            ])

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        assertTimeout(observer, seconds: 10, at: 210)
        XCTAssertEqual(transport.requests.count, 3)
    }

    func testTimeout_none_waitsAsLongAsItTakes() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 500))
        let client = try client(timeout: nil)

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            pipelineTimeline(observer).suffix(2), ["value(\(specAlice), network) @ 700", "completed @ 700"])
    }

    func testTimeout_infiniteNaNNegativeOrHuge_meansNoLimitAndNeverCrashes() throws {
        for limit in [TimeInterval.infinity, .nan, -1, 0, 1e300] {
            let scheduler = TestScheduler(initialClock: 0)
            let transport = StubTransport(scheduler: scheduler)
                .stub(path: "/v1/users/1", .json(specAliceJSON, delay: 500))
            let client = try makePipelineClient(transport, scheduler: scheduler) { $0.timeout(limit) }

            let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

            XCTAssertEqual(
                pipelineTimeline(observer).suffix(2), ["value(\(specAlice), network) @ 700", "completed @ 700"],
                "timeout \(limit)")
        }
    }

    func testTimeout_realTime_interceptorNeverCallingBack_failsTheCallbackWithTimeout() throws {
        let transport = StubTransport()
        let held = self.held!
        let client = try makePipelineClient(transport) {
            $0.timeout(0.05).add(interceptor: PipelineExecutionInterceptor { held.hold($0) })
        }
        let done = expectation(description: "completion")
        let received = PipelineBox<Response<SpecUser>?>(nil)
        let start = Date()
        client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in
            received.value = response
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        guard case .timeout(let seconds)? = received.value?.error as? LeashError else {
            return XCTFail("expected .timeout, got \(String(describing: received.value))")
        }
        XCTAssertEqual(seconds, 0.05)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.05)
    }
}
