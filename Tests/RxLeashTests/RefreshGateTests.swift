import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Leash's `RequestGate` hook, which `TokenRefresher` builds on: asked before each
/// attempt's request is built; waits count towards the timeout and end on dispose.
final class RefreshGateTests: RefreshTestCase {
    private let item = RefreshItem(id: 7)

    /// A gate that logs what it is asked and answers with `wait` (nil: open).
    private struct LoggingGate: RequestGate {
        let log: RefreshLog
        let wait: Completable?

        func admission(for endpoint: Endpoint, attempt: Int) -> Completable? {
            log.append("\(endpoint.path) attempt \(attempt)")
            return wait
        }
    }

    private func itemsTimeline(_ configure: @escaping (Manager.Builder) -> Manager.Builder) throws -> [String] {
        transport.stub(path: "/v1/items", .json(refreshItemJSON, delay: 10))
        let client = try makeClient(configure)
        let run = RefreshSubscriptions(scheduler)
        let observer = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()
        return refreshTimeline(observer)
    }

    func testOpenGate_isAskedOnce_andChangesNothing() throws {
        let log = RefreshLog()
        let timeline = try itemsTimeline { $0.gate(LoggingGate(log: log, wait: nil)) }

        XCTAssertEqual(
            timeline,
            [
                "prepared(1) @ 200", "sent(1, none) @ 200", "received(200, 1) @ 210", "value(\(item)) @ 210",
                "completed @ 210",
            ])
        XCTAssertEqual(log.all, ["/items attempt 1"])
    }

    func testClosedGate_holdsTheRequestUntilItsWaitCompletes() throws {
        let wait = scheduler.createColdObservable([Recorded<Event<Never>>.completed(5)])
        let timeline = try itemsTimeline { $0.gate(LoggingGate(log: RefreshLog(), wait: wait.asCompletable())) }

        XCTAssertEqual(
            timeline,
            [
                "prepared(1) @ 205", "sent(1, none) @ 205", "received(200, 1) @ 215", "value(\(item)) @ 215",
                "completed @ 215",
            ])
        XCTAssertEqual(wait.subscriptions, [Subscription(200, 205)])
    }

    func testFailingGate_failsTheExecutionWithItsError_andSendsNothing() throws {
        let wait = scheduler.createColdObservable([Recorded<Event<Never>>.error(5, RefreshTestError.revoked)])
        let timeline = try itemsTimeline { $0.gate(LoggingGate(log: RefreshLog(), wait: wait.asCompletable())) }

        XCTAssertEqual(timeline, ["error(revoked) @ 205"])
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testDisposingWhileHeld_disposesTheWait_andSendsNothing() throws {
        transport.stub(path: "/v1/items", .json(refreshItemJSON))
        let wait = scheduler.createColdObservable([Recorded<Event<Never>>.completed(50)])
        let client = try makeClient { $0.gate(LoggingGate(log: RefreshLog(), wait: wait.asCompletable())) }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200, disposedAt: 230) {
            client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self)
        }
        run.run()

        XCTAssertEqual(refreshTimeline(observer), [])
        XCTAssertEqual(wait.subscriptions, [Subscription(200, 230)])
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testTimeout_countsTheWait() throws {
        let wait = scheduler.createColdObservable([Recorded<Event<Never>>.completed(50)])
        let timeline = try itemsTimeline {
            $0.gate(LoggingGate(log: RefreshLog(), wait: wait.asCompletable())).timeout(30)
        }

        XCTAssertEqual(timeline, ["error(timeout) @ 230"])
        XCTAssertEqual(wait.subscriptions, [Subscription(200, 230)])
    }

    func testEveryAttemptAsksAgain_withItsNumber_alsoWithSerializationInterceptors() throws {
        transport.stub(path: "/v1/items", .status(503), .json(refreshItemJSON))
        let log = RefreshLog()
        let retryOn503 = RefreshCompletionInterceptor { chain, response in
            if response.statusCode == 503 {
                do { try chain.retry() } catch { chain.complete(with: error) }
            } else {
                chain.proceed()
            }
        }
        let client = try makeClient {
            $0.gate(LoggingGate(log: log, wait: nil)).add(interceptor: retryOn503)
                .add(interceptor: RefreshSerializationInterceptor())
        }
        let run = RefreshSubscriptions(scheduler)

        let observer = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(refreshOutcome(observer), ["value(\(item)) @ 200", "completed @ 200"])
        XCTAssertEqual(log.all, ["/items attempt 1", "/items attempt 2"])
    }

    func testSeveralGates_areWaitedForInOrder() throws {
        let first = scheduler.createColdObservable([Recorded<Event<Never>>.completed(5)])
        let second = scheduler.createColdObservable([Recorded<Event<Never>>.completed(3)])
        let timeline = try itemsTimeline {
            $0.gate(LoggingGate(log: RefreshLog(), wait: first.asCompletable()))
                .gate(LoggingGate(log: RefreshLog(), wait: second.asCompletable()))
        }

        XCTAssertEqual(timeline.first, "prepared(1) @ 208")
        XCTAssertEqual(first.subscriptions, [Subscription(200, 205)])
        XCTAssertEqual(second.subscriptions, [Subscription(205, 208)])
    }

    func testCallbackAndAsyncForms_areHeldToo() throws {
        transport.stub(path: "/v1/items", .json(refreshItemJSON))
        let wait = scheduler.createColdObservable([Recorded<Event<Never>>.completed(5)])
        let client = try makeClient { $0.gate(LoggingGate(log: RefreshLog(), wait: wait.asCompletable())) }
        let outcomes = RefreshLog()
        let scheduler = self.scheduler!

        scheduler.scheduleAt(200) {
            client.execute(RefreshEndpoint("items")) { (response: Response<RefreshItem>) in
                outcomes.append("\(response.value.map { "\($0)" } ?? "failure") @ \(scheduler.clock)")
            }
        }
        scheduler.start()

        XCTAssertEqual(outcomes.all, ["\(item) @ 205"])
    }
}

final class RefreshCompletionInterceptor: CompletionInterceptor, @unchecked Sendable {
    // @unchecked: the closure is the test's; it guards what it touches.
    let body: (InterceptorChain<Data>, Response<Data>) -> Void
    init(_ body: @escaping (InterceptorChain<Data>, Response<Data>) -> Void) { self.body = body }
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) { body(chain, response) }
}

/// A serialization interceptor that proceeds (it moves the execution onto the pipeline's
/// path for serialization interceptors).
final class RefreshSerializationInterceptor: SerializationInterceptor, @unchecked Sendable {
    // @unchecked: stateless.
    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
    ) {
        chain.proceed()
    }
}
