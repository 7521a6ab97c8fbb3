import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Execution`, the one object that owns a run: listed for `cancelAll()` while it runs;
/// ends exactly once whatever ends it first (its last outcome, a failure, a dispose,
/// `cancelAll()`, racing on many threads); its retry loop stops the attempt in progress and
/// starts the next with the next number, up to the manager's `maximumRetryCount`; and what
/// a stopped attempt reports afterwards does nothing.
final class ExecutionTests: PipelineTestCase {
    private func client(_ transport: Transport, configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makePipelineClient(transport, configure: configure)
    }

    func testStart_listsIt_andSendsTheRequest_thenItsValueEndsIt_andItLeavesTheList() throws {
        let transport = HeldTransport()
        let client = try client(transport)
        let sink = RecordingSink(record: SinkRecord())
        let execution = makeExecution(client, sink: sink)
        XCTAssertTrue(transport.requests.isEmpty, "nothing runs before start()")

        execution.start()
        XCTAssertEqual(client.manager.executions.count, 1)
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertTrue(execution.isCurrent(1))
        transport.requests[0].answer(200, "a")

        XCTAssertEqual(sink.record.all, ["value a", "end nil"])
        XCTAssertFalse(execution.isLive)
        XCTAssertEqual(client.manager.executions.count, 0)
    }

    func testFinish_endsItOnce_cancelsTheRequest_andWhatFollowsDoesNothing() throws {
        let transport = HeldTransport()
        let client = try client(transport)
        let sink = RecordingSink(record: SinkRecord())
        let execution = makeExecution(client, sink: sink)
        execution.start()

        execution.finish(LeashError.cancelled)
        execution.finish(nil)
        execution.cancelFromManager()
        execution.dispose()
        execution.attempt(1, produced: .success(value: Data("late".utf8), extra: nil), context: contextOf(client))
        execution.attemptFinished(1)

        XCTAssertEqual(sink.record.all, ["end cancelled"])
        XCTAssertEqual(transport.requests.map(\.disposeCount), [1])
        XCTAssertEqual(client.manager.executions.count, 0)
    }

    func testDispose_endsItQuietly_cancelsTheRequest_andTellsTheEndObserversOnce() throws {
        let transport = HeldTransport()
        let recorder = EndRecorder()
        let client = try client(transport) { $0.add(interceptor: recorder) }
        let sink = RecordingSink(record: SinkRecord())
        let execution = makeExecution(client, sink: sink)
        execution.start()

        execution.dispose()
        execution.finish(LeashError.cancelled)
        transport.requests[0].answer(200, "late")

        XCTAssertEqual(sink.record.all, [], "the subscriber let go: it hears nothing, not even the end")
        XCTAssertEqual(transport.requests[0].disposeCount, 1)
        XCTAssertEqual(recorder.summaries, ["disposed after 1"])
    }

    func testOutcomesOfAnotherAttempt_areIgnored() throws {
        let transport = HeldTransport()
        let client = try client(transport)
        let sink = RecordingSink(record: SinkRecord())
        let execution = makeExecution(client, sink: sink)
        execution.start()

        execution.attempt(2, produced: .success(value: Data("stale".utf8), extra: nil), context: contextOf(client))
        execution.attemptFinished(2)
        execution.retry(RetrySignal(lastError: nil), from: 2)

        XCTAssertEqual(sink.record.all, [])
        XCTAssertTrue(execution.isCurrent(1))
        XCTAssertEqual(transport.requests.count, 1, "a retry from an attempt not in progress starts nothing")
        execution.dispose()
    }

    func testRetry_stopsTheAttempt_andStartsTheNextWithTheNextNumber() throws {
        let transport = HeldTransport()
        let client = try client(transport)
        let sink = RecordingSink(record: SinkRecord(), reportsProgress: true)
        let execution = makeExecution(client, sink: sink)
        execution.start()

        execution.retry(RetrySignal(lastError: nil), from: 1)

        XCTAssertEqual(transport.requests.map(\.disposeCount), [1, 0], "attempt 1 stopped, attempt 2 sent")
        XCTAssertFalse(execution.isCurrent(1))
        XCTAssertTrue(execution.isCurrent(2))
        XCTAssertEqual(
            sink.record.all,
            ["requestPrepared(1)", "requestSent(1)", "retrying(2)", "requestPrepared(2)", "requestSent(2)"])
        execution.retry(RetrySignal(lastError: nil), from: 1)
        XCTAssertEqual(transport.requests.count, 2, "attempt 1 is over: its retry does nothing")
        transport.requests[1].answer(200, "b")
        XCTAssertEqual(sink.record.values, ["value b"])
        XCTAssertEqual(sink.record.ends, ["end nil"])
    }

    func testRetry_pastMaximumRetryCount_failsWithRetryLimitExceeded_andItsLastError() throws {
        let transport = HeldTransport()
        let client = try client(transport) { $0.maximumRetryCount(2) }
        let sink = RecordingSink(record: SinkRecord())
        let execution = makeExecution(client, sink: sink)
        execution.start()

        for attempt in 1...3 { execution.retry(RetrySignal(lastError: LeashError.cancelled), from: attempt) }

        XCTAssertEqual(transport.requests.count, 3, "the first attempt and two retries")
        XCTAssertEqual(transport.requests.map(\.disposeCount), [1, 1, 1])
        XCTAssertEqual(sink.record.all, ["end retryLimitExceeded(3, cancelled)"])
        XCTAssertFalse(execution.isLive)
    }

    func testAnAttemptBeginningAfterTheEnd_isStoppedAtOnce() throws {
        let transport = HeldTransport()
        let client = try client(transport)
        let execution = makeExecution(client, sink: RecordingSink(record: SinkRecord()))
        execution.start()
        execution.finish(nil)

        let late = Attempt(execution: execution, number: 1, context: contextOf(client), output: execution)
        XCTAssertTrue(late.isLive)
        _ = execution.attach(late)

        XCTAssertFalse(late.isLive, "its request would be out after the end")
    }

    func testFinishDisposeAndCancelAll_racingOnManyThreads_endEachExecutionExactlyOnce() throws {
        let transport = HeldTransport()
        let recorder = EndRecorder()
        let client = try client(transport) { $0.add(interceptor: recorder) }
        let count = 300
        let sinks = (0..<count).map { _ in RecordingSink(record: SinkRecord()) }
        let executions = (0..<count).map { index in
            makeExecution(client, endpoint: PipelineEndpoint(path: "/users/\(index)"), sink: sinks[index])
        }
        executions.forEach { $0.start() }
        XCTAssertEqual(client.manager.executions.count, count)

        DispatchQueue.concurrentPerform(iterations: count * 3) { index in
            let execution = executions[index / 3]
            switch index % 3 {
            case 0: execution.finish(LeashError.timeout(seconds: 1))
            case 1: execution.dispose()
            default: client.manager.cancelAll()
            }
        }

        XCTAssertEqual(client.manager.executions.count, 0)
        XCTAssertEqual(transport.requests.count, count)
        XCTAssertTrue(transport.requests.allSatisfy { $0.disposeCount == 1 }, "a request was not cancelled")
        let ends = recorder.ends
        XCTAssertEqual(ends.count, count, "an execution was reported ended twice, or never")
        XCTAssertEqual(Set(ends.map(\.endpoint.path)).count, count)
        for end in ends {
            let index = Int(end.endpoint.path.dropFirst("/users/".count))!
            let heard = sinks[index].record.all
            switch end.outcome {
            case .disposed: XCTAssertEqual(heard, [], "disposed first: the form hears nothing")
            case .failed(let error):
                // A dispose racing the end may keep the end from the form: never another end.
                XCTAssertTrue(heard == [] || heard == ["end \(executionErrorName(error))"], "\(heard) for \(error)")
            case .completed: XCTFail("nothing completed")
            }
        }
    }

    /// A context of attempt 1 of `PipelineEndpoint()` on `client`.
    private func contextOf(_ client: Client) -> ExecutionContext {
        ExecutionContext(
            client: client, endpoint: PipelineEndpoint(), request: DataRequest(URLRequest(url: executionTestURL)),
            attempt: 1)
    }
}
