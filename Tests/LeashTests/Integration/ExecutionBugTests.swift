import Foundation
import Leash
import Rx
import XCTest

/// Bugs outside this suite's area (the execution pipeline and client): each test passes
/// once its bug is fixed and skips, saying why, until then.
final class ExecutionBugTests: XCTestCase {
    private func makeClient() throws -> Client {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(#"{"id":1}"#))
        return Client(manager: try Manager.Builder().url("http://h").transport(transport).build())
    }

    // BUG: Sources/Leash/Execution/Client.swift, `execute(_:serializer:queue:completion:)`
    // (lines 82-91): the completion handlers capture `CallbackDelivery`, which holds the
    // `DataRequest`, whose `SerialDisposable` holds the subscription (`handle.attach`),
    // whose `SubscribeSink` (Sources/Rx/Core/ObservableType+Subscribe.swift) keeps its
    // handlers after the stream ended. The cycle is never broken, so every completed
    // callback execution leaks its DataRequest and two Rx resources. (RxSwift's
    // subscribe releases its observer on termination; ours keeps it.)
    func testCallbackExecute_completedExecution_freesItsHandleAndSubscription() throws {
        let client = try makeClient()
        let baseline = Resources.total
        weak var weakHandle: DataRequest?
        do {
            let done = expectation(description: "completed")
            let handle = client.execute(SpecEndpoint("/x"), serializer: DataResponseSerializer()) { response in
                XCTAssertTrue(response.isSuccess)
                done.fulfill()
            }
            weakHandle = handle
            wait(for: [done], timeout: 5)
        }
        let freed = waitForResources(baseline) && weakHandle == nil
        if !freed {
            throw XCTSkip(
                "BUG: a completed callback execution stays alive (DataRequest ↔ subscription cycle in Client.execute); "
                    + "Resources.total \(Resources.total) vs \(baseline)")
        }
    }

    // BUG: Sources/Leash/Execution/Client.swift, `AsyncExecution.start` (lines 209-227)
    // stores the subscription in `self.subscription`, and the subscription's handlers
    // capture `self`; only `cancel()` clears it, so every completed `await execute` leaks
    // the waiter and its subscription.
    func testAsyncExecute_completedExecution_freesItsSubscription() async throws {
        let client = try makeClient()
        let baseline = Resources.total
        let value = try await client.execute(SpecEndpoint("/x"), serializer: DataResponseSerializer())
        XCTAssertEqual(String(decoding: value, as: UTF8.self), #"{"id":1}"#)
        let freed = await Task.detached { waitForResources(baseline) }.value
        if !freed {
            throw XCTSkip(
                "BUG: a completed async execution stays alive (AsyncExecution keeps its subscription); "
                    + "Resources.total \(Resources.total) vs \(baseline)")
        }
    }

    // BUG: Sources/Leash/Execution/DispatchTimerScheduler.swift, `scheduleRelative`
    // (lines 22-33): disposing a timer only sets a flag; the `asyncAfter` block keeps the
    // action (and through it the execution's timeout sink and pipeline) until the deadline.
    // With a 60 s manager timeout every completed execution stays in memory for 60 s.
    // A cancellable `DispatchWorkItem` (or a `DispatchSourceTimer`) would free it at once.
    func testTimeout_completedExecution_isFreedBeforeTheDeadline() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(#"{"id":1}"#))
        let manager = try Manager.Builder().url("http://h").transport(transport).timeout(4).build()
        let client = Client(manager: manager)
        let baseline = Resources.total
        let response = try client.specExecute(SpecEndpoint("/x"), serializer: DataResponseSerializer())
            .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
        if !waitForResources(baseline) {
            // Let the deadline pass first, so that the late release does not disturb the
            // resource counts of the tests that run next.
            _ = waitForResources(baseline, seconds: 4)
            throw XCTSkip(
                "BUG: a completed execution with a 4 s timeout stays alive until its timer's deadline "
                    + "(DispatchTimerScheduler keeps cancelled timers); Resources.total \(Resources.total) vs \(baseline)"
            )
        }
    }

    // BUG: Sources/Leash/Execution/ExecutionPipeline.swift:54 converts the endpoint's
    // timeout with `Int((seconds * 1000).rounded(.up))`, which traps for `.infinity` (or
    // any value above about 9.2e15 s): an endpoint whose `timeout` is `.infinity` crashes
    // the process. `Manager.Builder.timeout(_:)` treats such values as "no limit" and
    // clamps huge ones; the endpoint's value needs the same. Set LEASH_RUN_KNOWN_CRASHES=1
    // to run it (it crashes the test process until fixed).
    func testExecution_infiniteEndpointTimeout_meansNoLimit() throws {
        guard ProcessInfo.processInfo.environment["LEASH_RUN_KNOWN_CRASHES"] != nil else {
            throw XCTSkip("BUG: an endpoint timeout of .infinity traps in ExecutionPipeline.events() (Int conversion)")
        }
        let response = try makeClient().specExecute(
            SpecEndpoint("/x", timeout: .infinity), serializer: DataResponseSerializer()
        )
        .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
    }

    func testExecution_hugeManagerTimeout_isClampedAndWorks() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(#"{"id":1}"#))
        let manager = try Manager.Builder().url("http://h").transport(transport).timeout(1e300).build()
        let response = try Client(manager: manager).specExecute(
            SpecEndpoint("/x"), serializer: DataResponseSerializer()
        )
        .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
    }

    func testExecutionStream_completedExecution_isFreed() throws {
        // The stream itself frees everything: the leaks above are in the callback and
        // async wrappers only.
        let client = try makeClient()
        let baseline = Resources.total
        let response = try client.specExecute(SpecEndpoint("/x"), serializer: DataResponseSerializer())
            .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
        XCTAssertTrue(waitForResources(baseline), "Resources.total \(Resources.total) vs \(baseline)")
    }
}

/// Whether `Resources.total` comes back to `baseline` within `seconds`.
private func waitForResources(_ baseline: Int32, seconds: TimeInterval = 2) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Resources.total != baseline && Date() < deadline {
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
    }
    return Resources.total == baseline
}
