import Dispatch
import Foundation
import LeashTesting
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `AsyncExecution`, the `async` form's sink: its result is the last value, or the failure
/// that ended the execution (the first end counts, and a failure drops the value); an
/// execution that completes without a value fails; cancelling ends it with `cancelled`,
/// stops a running execution and keeps a later start from sending anything; and every end
/// finishes the awaiting task's mailbox.
final class AsyncExecutionTests: RealTimeStubTestCase {
    /// Whether `mailbox` is finished: a job handed to a finished mailbox is dropped, so the
    /// next item says it without waiting.
    private func isFinished(_ mailbox: TaskMailbox) async -> Bool {
        mailbox.hand {}
        guard case .finished = await mailbox.next() else { return false }
        return true
    }

    private func result<Value>(_ execution: AsyncExecution<Value>) -> Result<Value, Swift.Error> {
        Result { try execution.result() }
    }

    func testValuesThenCompletion_theResultIsTheLastValue() async throws {
        let mailbox = TaskMailbox()
        let execution = AsyncExecution<Int>(mailbox: mailbox)
        execution.value(1, extra: ResponseExtra(source: .interceptor))
        execution.value(2, extra: ResponseExtra(source: .network))
        XCTAssertThrowsError(try execution.result(), "not over yet")
        execution.value(3, extra: ResponseExtra(source: .network))
        execution.end(nil)

        XCTAssertEqual(try execution.result(), 3)
        let finished = await isFinished(mailbox)
        XCTAssertTrue(finished)
    }

    func testCompletionWithoutAValue_isInvalidResponse() async {
        let mailbox = TaskMailbox()
        let execution = AsyncExecution<Int>(mailbox: mailbox)
        execution.end(nil)
        XCTAssertEqual(executionErrorName(result(execution).failure), "invalidResponse")
        let finished = await isFinished(mailbox)
        XCTAssertTrue(finished)
    }

    func testAFailure_isThrown_andTheValueDropped() {
        let execution = AsyncExecution<Int>(mailbox: TaskMailbox())
        execution.value(1, extra: ResponseExtra(source: .network))
        execution.end(LeashError.timeout(seconds: 2))
        XCTAssertEqual(executionErrorName(result(execution).failure), "timeout(2.0)")
    }

    func testTheFirstEndCounts() {
        let execution = AsyncExecution<Int>(mailbox: TaskMailbox())
        execution.value(1, extra: ResponseExtra(source: .network))
        execution.end(nil)
        execution.end(LeashError.cancelled)
        execution.cancel()
        XCTAssertEqual(try execution.result(), 1)
    }

    func testCancelBeforeStart_startsNothing_andEndsWithCancelled() async throws {
        let held = HeldTransport()
        let client = try makePipelineClient(held)
        let mailbox = TaskMailbox()
        let execution = AsyncExecution<Data>(mailbox: mailbox)

        execution.cancel()
        execution.start(
            ExecutionRecipe(client: client, endpoint: PipelineEndpoint()), serializer: DataResponseSerializer())

        XCTAssertTrue(held.requests.isEmpty)
        XCTAssertEqual(executionErrorName(result(execution).failure), "cancelled")
        let finished = await isFinished(mailbox)
        XCTAssertTrue(finished)
    }

    func testCancelAfterStart_cancelsTheRequest_andEndsWithCancelled() async throws {
        let held = HeldTransport()
        let client = try makePipelineClient(held)
        let mailbox = TaskMailbox()
        let execution = AsyncExecution<Data>(mailbox: mailbox)
        execution.start(
            ExecutionRecipe(client: client, endpoint: PipelineEndpoint()), serializer: DataResponseSerializer())
        XCTAssertEqual(held.requests.count, 1)

        execution.cancel()
        held.requests[0].answer(200, "late")

        XCTAssertEqual(held.requests[0].disposeCount, 1)
        XCTAssertEqual(executionErrorName(result(execution).failure), "cancelled")
        XCTAssertEqual(client.manager.executions.count, 0)
        let finished = await isFinished(mailbox)
        XCTAssertTrue(finished)
    }

    // MARK: Through the async form

    func testAsyncExecute_cacheThenNetwork_returnsTheLastValue() async throws {
        transport.stub(.get, path: "/v1/users/1", .json(specBobJSON))
        let client = try client {
            $0.add(
                interceptor: PipelineExecutionInterceptor { chain in
                    chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                    chain.proceed()
                })
        }

        let user = try await client.execute(PipelineEndpoint(), as: SpecUser.self)

        XCTAssertEqual(user, specBob)
    }

    func testAsyncExecute_cancellingTheTask_throwsCancelledAndSendsNothingMore() async throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let held = PipelineHeldChains()
        let client = try client { $0.add(interceptor: PipelineExecutionInterceptor { held.hold($0) }) }

        let task = Task { try await client.execute(PipelineEndpoint(), as: SpecUser.self) }
        while held.count == 0 { await Task.yield() }
        task.cancel()

        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            guard case .cancelled? = error as? LeashError else { return XCTFail("expected .cancelled, got \(error)") }
        }
        held.last?.proceed()
        held.releaseAll()
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testAsyncExecute_alreadyCancelledTask_throwsCancelledWithoutSending() async throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let client = try client()

        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.execute(PipelineEndpoint(), as: SpecUser.self)
        }

        do {
            _ = try await task.value
            XCTFail("expected cancellation")
        } catch {
            guard case .cancelled? = error as? LeashError else { return XCTFail("expected .cancelled, got \(error)") }
        }
        XCTAssertTrue(transport.requests.isEmpty, "a cancelled task sends no request")
    }

}
