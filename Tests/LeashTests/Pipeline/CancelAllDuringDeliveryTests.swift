import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

/// `Manager.cancelAll()` while an execution's final value is being delivered (here from
/// the subscriber's own `onNext`, which makes the race of a `cancelAll()` on another
/// thread deterministic): the value settled the execution, so it completes; a cancel
/// never follows the final value (a callback called twice). A value that is not the
/// last (a cached value before the network's) does not settle it, and a retry after a
/// settled value puts the execution back in `cancelAll()`'s reach.
final class CancelAllDuringDeliveryTests: VirtualTimeTestCase {
    /// The forms, whose sinks take an execution's end differently.
    private enum Form: CaseIterable {
        /// The values form (`ObservableForms.Values`).
        case values
        /// The same, its values through a serialization interceptor (which may call back
        /// later).
        case valuesWithSerializationInterceptor
        /// The events form, which reports progress.
        case events
        /// The callback form, in place (no callback queue).
        case callback
    }

    private func makeClient(_ recorder: EndRecorder, configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makePipelineClient(transport, scheduler: scheduler) { builder in
            builder.add(interceptor: recorder)
            configure(builder)
        }
    }

    /// Subscribes to `endpoint` in `form`, recording "value", "completed" or the error
    /// in `log`; each value's delivery runs `onValue`.
    private func subscribe(
        _ form: Form, _ client: Client, _ endpoint: Endpoint, log: PipelineLog, onValue: @escaping () -> Void
    ) -> Disposable {
        let serializer = DataResponseSerializer()
        let onNext: (Any) -> Void = { _ in
            log.append("value")
            onValue()
        }
        let onError: (Swift.Error) -> Void = { log.append("\($0)") }
        let onCompleted = { log.append("completed") }
        switch form {
        case .values, .valuesWithSerializationInterceptor:
            return client.bareValues(endpoint, serializer: serializer)
                .subscribe(onNext: onNext, onError: onError, onCompleted: onCompleted)
        case .events:
            return client.eventStream(endpoint, serializer: serializer)
                .compactMap(\.value)
                .subscribe(onNext: onNext, onError: onError, onCompleted: onCompleted)
        case .callback:
            return client.execute(endpoint, serializer: serializer) { response in
                if let error = response.error { return onError(error) }
                onNext(response)
            }
        }
    }

    func testCancelAllFromTheFinalValuesOnNext_isTooLate_theExecutionCompletes() throws {
        for form in Form.allCases {
            for timeout in [nil, 60 as TimeInterval?] {
                let context = "\(form), timeout \(String(describing: timeout))"
                let recorder = EndRecorder()
                let client = try makeClient(recorder) { builder in
                    if form == .valuesWithSerializationInterceptor {
                        builder.add(interceptor: PassingSerializationInterceptor())
                    }
                }
                transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 1))
                let log = PipelineLog()

                let subscription = subscribe(form, client, PipelineEndpoint(timeout: timeout), log: log) {
                    client.manager.cancelAll()
                }
                scheduler.advanceTo(scheduler.clock + 100)
                subscription.dispose()

                let expected = form == .callback ? ["value"] : ["value", "completed"]
                XCTAssertEqual(log.all, expected, context)
                XCTAssertEqual(recorder.summaries, ["completed after 1"], context)
                XCTAssertEqual(client.manager.executions.count, 0, "\(context): nothing left in the registry")
            }
        }
    }

    func testCancelAllFromAnInterimValuesOnNext_cancelsTheRestOfTheExecution() throws {
        for form in Form.allCases {
            let recorder = EndRecorder()
            let client = try makeClient(recorder) { builder in
                builder.add(interceptor: InterimValueFirst())
                if form == .valuesWithSerializationInterceptor {
                    builder.add(interceptor: PassingSerializationInterceptor())
                }
            }
            transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 10))
            let log = PipelineLog()

            let subscription = subscribe(form, client, PipelineEndpoint(), log: log) {
                client.manager.cancelAll()
            }
            scheduler.advanceTo(scheduler.clock + 100)
            subscription.dispose()

            XCTAssertEqual(log.all, ["value", "\(LeashError.cancelled)"], "\(form): the network's value never came")
            XCTAssertEqual(recorder.summaries, ["failed(\(LeashError.cancelled)) after 1"], "\(form)")
            XCTAssertEqual(client.manager.executions.count, 0, "\(form)")
        }
    }

    func testRetryAfterASettledValue_isInCancelAllsReachAgain() throws {
        for form in [Form.values, .events, .callback] {
            let recorder = EndRecorder()
            let cancelCalls = SpecLocked(0)
            // The first attempt's value reaches the serialization stage settled: the
            // `cancelAll()` made there is too late for it. The retry is in flight again,
            // and the `cancelAll()` 5 s into it ends it.
            let client = try makeClient(recorder) { builder in
                builder.add(
                    interceptor: RetryingOnceAfterSerialization(beforeRetry: { cancelCalls.withLock { $0 += 1 } }))
            }
            transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 10))
            let log = PipelineLog()

            let subscription = subscribe(form, client, PipelineEndpoint(), log: log) {}
            scheduler.advanceTo(scheduler.clock + 10)
            XCTAssertEqual(cancelCalls.value, 1, "\(form): the first attempt was serialized")
            XCTAssertEqual(recorder.summaries, [], "\(form): the cancel before the retry was too late")
            XCTAssertEqual(client.manager.executions.count, 1, "\(form): the retry is in flight")
            scheduler.advanceTo(scheduler.clock + 5)
            client.manager.cancelAll()
            scheduler.advanceTo(scheduler.clock + 100)
            subscription.dispose()

            XCTAssertEqual(log.all, ["\(LeashError.cancelled)"], "\(form)")
            XCTAssertEqual(recorder.summaries, ["failed(\(LeashError.cancelled)) after 2"], "\(form)")
            XCTAssertEqual(client.manager.executions.count, 0, "\(form)")
        }
    }
}

/// Hands back a value at once (as a cache does) and lets the request go on.
private struct InterimValueFirst: ExecutionInterceptor {
    func intercept(chain: InterceptorChain<Data>) {
        chain.complete(with: Data("{}".utf8), finish: false)
        chain.proceed()
    }
}

/// Retries the first attempt once, from the serialization stage, calling `beforeRetry`
/// and then the manager's `cancelAll()` first.
private struct RetryingOnceAfterSerialization: SerializationInterceptor {
    let beforeRetry: @Sendable () -> Void

    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
    ) {
        guard chain.attempt == 1 else { return chain.proceed() }
        beforeRetry()
        chain.client.manager.cancelAll()
        do {
            try chain.retry()
        } catch {
            chain.complete(with: error)
        }
    }
}
