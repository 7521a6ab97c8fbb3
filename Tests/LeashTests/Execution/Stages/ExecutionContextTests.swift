import Foundation
import LeashTesting
import LeashTestSupport
import Rx
import RxTesting
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ExecutionContext`, what an operator interceptor knows of its execution: `canRetry`
/// follows the manager's `maximumRetryCount`, `retry(after:)` is the signal that restarts
/// the execution carrying its last error, marks are shared by every attempt of one
/// execution, and a replaced request keeps the attempt (and records itself as the
/// execution's latest for its end report).
final class ExecutionContextTests: VirtualTimeTestCase {
    private func context(
        _ client: Client, attempt: Int = 1, marks: ExecutionMarks? = nil, ending: EndReport? = nil
    ) -> ExecutionContext {
        ExecutionContext(
            client: client, endpoint: PipelineEndpoint(), request: DataRequest(URLRequest(url: executionTestURL)),
            attempt: attempt, marks: marks, ending: ending)
    }

    func testCanRetry_followsTheManagersMaximumRetryCount() throws {
        let client = try makePipelineClient(transport) { $0.maximumRetryCount(2) }
        XCTAssertEqual((1...4).map { context(client, attempt: $0).canRetry }, [true, true, false, false])
        let never = try makePipelineClient(transport) { $0.maximumRetryCount(0) }
        XCTAssertFalse(context(never).canRetry)
    }

    func testRetryAfter_isTheSignalThatRestarts_carryingTheLastError() throws {
        let client = try makePipelineClient(transport)
        let errors = PipelineBox<[Swift.Error]>([])
        _ = context(client).retry(after: LeashError.timeout(seconds: 3))
            .subscribe(
                onNext: { _ in XCTFail("a retry has no value") },
                onError: { error in errors.mutate { $0.append(error) } })

        XCTAssertEqual(errors.value.count, 1)
        let signal = try XCTUnwrap(errors.value.first as? RetrySignal)
        XCTAssertEqual(executionErrorName(signal.lastError), "timeout(3.0)")
    }

    func testMarks_areSharedByEveryAttemptOfOneExecution_only() throws {
        let client = try makePipelineClient(transport)
        let marks = ExecutionMarks()
        let first = context(client, attempt: 1, marks: marks)
        let second = context(client, attempt: 2, marks: marks)
        let otherExecution = context(client, marks: ExecutionMarks())

        XCTAssertFalse(second.isMarked("refreshed"))
        XCTAssertTrue(first.mark("refreshed"), "new to the execution")
        XCTAssertFalse(first.mark("refreshed"))
        XCTAssertTrue(second.isMarked("refreshed"))
        XCTAssertFalse(second.mark("refreshed"), "an earlier attempt recorded it")
        XCTAssertFalse(otherExecution.isMarked("refreshed"))
    }

    func testWithoutMarks_nothingIsMarked() throws {
        let client = try makePipelineClient(transport)
        let unmarked = context(client)
        XCTAssertTrue(unmarked.mark("x"))
        XCTAssertTrue(unmarked.mark("x"), "nothing records it")
        XCTAssertFalse(unmarked.isMarked("x"))
    }

    func testReplacingTheRequest_keepsTheAttempt_andBecomesTheLatestForTheEndReport() throws {
        let client = try makePipelineClient(transport)
        let recorder = EndRecorder()
        let ending = try XCTUnwrap(EndReport(observers: [recorder]))
        let marks = ExecutionMarks()
        let original = context(client, attempt: 2, marks: marks, ending: ending)
        _ = original.mark("seen")
        let adapted = URL(string: "https://api.example.com/v1/users/1?signed=1")!

        let replaced = original.replacingRequest(URLRequest(url: adapted))
        ending.end(.completed, client: client, endpoint: PipelineEndpoint())

        XCTAssertEqual(replaced.request.urlRequest?.url, adapted)
        XCTAssertTrue(replaced.attemptRequest === original.request, "the same attempt, identified by its first request")
        XCTAssertEqual(replaced.attempt, 2)
        XCTAssertTrue(replaced.isMarked("seen"))
        XCTAssertTrue(recorder.ends.first?.lastAttempt === replaced)
    }

    func testCanRetry_saysWhatRetryWillDo_atEveryAttempt_inAContext() throws {
        transport.stub(path: "/v1/users/1", .status(500))
        let seen = PipelineLog()
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.maximumRetryCount(1).add(interceptor: RetryWhileAllowed(seen: seen))
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(seen.all, ["attempt 1: true", "attempt 2: false"])
        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertEqual(
            (pipelineError(observer) as? LeashError)?.statusCode, 500,
            "the operator let the last failure through instead of asking for a refused retry")
    }

}

/// Retries every failure while the context says a retry is left, then lets it through.
private struct RetryWhileAllowed: OperatorInterceptor {
    let seen: PipelineLog

    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        upstream.flatMap { response -> Observable<Response<Data>> in
            seen.append("attempt \(context.attempt): \(context.canRetry)")
            return context.canRetry ? context.retry(after: response.error) : .just(response)
        }
    }
}
