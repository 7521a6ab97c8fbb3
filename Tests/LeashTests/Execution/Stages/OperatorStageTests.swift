import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `OperatorStage`, the operator interceptors composed on an attempt's outcomes: each
/// subscription to the outcomes runs the attempt anew, the operators apply in the order
/// added, and what they emit reaches the execution: values, the end of the attempt, a
/// `context.retry()` as the next attempt, any other error as the execution's end; and
/// ending the execution stops the attempt inside the operators' subscription.
final class OperatorStageTests: PipelineTestCase {
    /// An operator interceptor made of a closure.
    private struct Operator: OperatorInterceptor {
        let body: @Sendable (Observable<Response<Data>>, ExecutionContext) -> Observable<Response<Data>>
        func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>>
        {
            body(upstream, context)
        }
    }

    /// Appends `suffix` to every body.
    private func appending(_ suffix: String) -> Operator {
        Operator { upstream, _ in
            upstream.map { response in
                guard let data = response.value else { return response }
                return .success(value: data + Data(suffix.utf8), extra: response.extra)
            }
        }
    }

    /// A started execution on a client over `transport` with `operators`.
    private func started(_ transport: HeldTransport, _ operators: [Operator]) throws -> (Execution, SinkRecord) {
        let client = try makePipelineClient(transport) { builder in
            for item in operators { builder.add(interceptor: item) }
        }
        let sink = RecordingSink(record: SinkRecord())
        let execution = makeExecution(client, sink: sink)
        execution.start()
        return (execution, sink.record)
    }

    func testEachSubscription_runsTheAttemptAnew() throws {
        let transport = HeldTransport()
        let (_, record) = try started(transport, [Operator { upstream, _ in upstream.concat(upstream) }])

        transport.requests[0].answer(200, "a")
        XCTAssertEqual(transport.requests.count, 2, "the second subscription sent the request again")
        transport.requests[1].answer(200, "b")

        XCTAssertEqual(record.all, ["value a", "value b", "end nil"])
    }

    func testTheOperators_applyInTheOrderAdded() throws {
        let transport = HeldTransport()
        let (_, record) = try started(transport, [appending("1"), appending("2")])

        transport.requests[0].answer(200, "x")

        XCTAssertEqual(record.all, ["value x12", "end nil"])
    }

    func testAnAttemptEndingWithoutValues_completesTheExecution() throws {
        let transport = HeldTransport()
        let (execution, record) = try started(transport, [Operator { upstream, _ in upstream.filter { _ in false } }])

        transport.requests[0].answer(200, "dropped")

        XCTAssertEqual(record.all, ["end nil"])
        XCTAssertFalse(execution.isLive)
    }

    func testAnOperatorsError_endsTheExecutionWithIt() throws {
        let transport = HeldTransport()
        let failing = Operator { upstream, _ in
            upstream.flatMap { _ in Observable<Response<Data>>.error(PipelineAppError.unauthorized) }
        }
        let (_, record) = try started(transport, [failing])

        transport.requests[0].answer(200)

        XCTAssertEqual(record.all, ["end unauthorized"])
    }

    func testContextRetry_stopsTheAttempt_andRunsTheNext() throws {
        let transport = HeldTransport()
        let retrying = Operator { upstream, context in
            upstream.flatMap { response in context.attempt == 1 ? context.retry() : .just(response) }
        }
        let (execution, record) = try started(transport, [retrying])

        transport.requests[0].answer(503)
        XCTAssertTrue(execution.isCurrent(2))
        transport.requests[1].answer(200, "second")

        XCTAssertEqual(record.all, ["value second", "end nil"])
    }

    func testEndingTheExecution_stopsTheAttemptInsideTheOperatorsSubscription() throws {
        let transport = HeldTransport()
        let (execution, record) = try started(transport, [appending("!")])

        execution.dispose()

        XCTAssertEqual(transport.requests.map(\.disposeCount), [1])
        XCTAssertEqual(record.all, [])
    }
}
