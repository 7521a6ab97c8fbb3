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

/// `ExecutionEndObserver`: told exactly once per execution, whatever ends it (a value
/// delivered, a failure, the timeout, a dispose, `cancelAll()`), in every form, with the
/// last attempt's context.
final class ExecutionEndObserverTests: VirtualTimeTestCase {
    /// The forms, whose sinks take an execution's end differently: the values form
    /// (without and with serialization interceptors) and the events form.
    private enum Form: CaseIterable {
        case values
        case valuesWithSerializationInterceptor
        case events
    }

    private let url = "https://api.example.com/v1/users/1"

    private func makeClient(_ form: Form, _ recorder: EndRecorder, configure: (Manager.Builder) -> Void = { _ in })
        throws -> Client
    {
        try makePipelineClient(transport, scheduler: scheduler) { builder in
            builder.add(interceptor: recorder)
            if form == .valuesWithSerializationInterceptor {
                builder.add(interceptor: PassingSerializationInterceptor())
            }
            configure(builder)
        }
    }

    /// Subscribes to `endpoint` in `form`; `failures` gets the error the subscriber saw.
    private func subscribe(_ form: Form, _ client: Client, _ endpoint: Endpoint, failures: SpecLocked<[String]>)
        -> Disposable
    {
        let serializer = DataResponseSerializer()
        let onError: (Swift.Error) -> Void = { error in failures.withLock { $0.append("\(error)") } }
        switch form {
        case .values, .valuesWithSerializationInterceptor:
            return client.bareValues(endpoint, serializer: serializer).subscribe(onError: onError)
        case .events:
            return client.eventStream(endpoint, serializer: serializer).subscribe(onError: onError)
        }
    }

    func testSuccess_isToldOnce_asCompleted_withTheLastAttempt() throws {
        for form in Form.allCases {
            let recorder = EndRecorder()
            let client = try makeClient(form, recorder)
            transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 1))
            let failures = SpecLocked<[String]>([])

            let subscription = subscribe(form, client, PipelineEndpoint(), failures: failures)
            scheduler.advanceTo(scheduler.clock + 10)
            subscription.dispose()

            XCTAssertEqual(recorder.summaries, ["completed after 1"], "\(form)")
            XCTAssertEqual(recorder.ends.first?.lastAttempt?.request.urlRequest?.url?.absoluteString, url, "\(form)")
            XCTAssertEqual(recorder.ends.first?.endpoint.path, "/users/1", "\(form)")
            XCTAssertEqual(failures.value, [], "\(form)")
        }
    }

    func testFailure_isToldOnce_withTheErrorTheSubscriberGets() throws {
        for form in Form.allCases {
            let recorder = EndRecorder()
            let client = try makeClient(form, recorder)
            transport.stub(path: "/v1/users/1", .status(404, delay: 1))
            let failures = SpecLocked<[String]>([])

            let subscription = subscribe(form, client, PipelineEndpoint(), failures: failures)
            scheduler.advanceTo(scheduler.clock + 10)
            subscription.dispose()

            XCTAssertEqual(recorder.ends.count, 1, "\(form)")
            XCTAssertEqual(recorder.ends.first?.error.map { "\($0)" }, failures.value.first, "\(form)")
            XCTAssertEqual((recorder.ends.first?.error as? LeashError)?.statusCode, 404, "\(form)")
        }
    }

    func testRetriedExecution_reportsTheLastAttempt_withItsAdaptedRequest() throws {
        for form in Form.allCases {
            let recorder = EndRecorder()
            let client = try makeClient(form, recorder) { builder in
                builder.add(interceptor: RetryingOnceCompletion())
                builder.adapt { request, context in
                    var request = request
                    request.setValue(String(context.attempt), forHTTPHeaderField: "X-Attempt")
                    return request
                }
            }
            transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 1))
            let failures = SpecLocked<[String]>([])

            let subscription = subscribe(form, client, PipelineEndpoint(), failures: failures)
            scheduler.advanceTo(scheduler.clock + 10)
            subscription.dispose()

            XCTAssertEqual(recorder.summaries, ["completed after 2"], "\(form)")
            let request = recorder.ends.first?.lastAttempt?.request.urlRequest
            XCTAssertEqual(request?.value(forHTTPHeaderField: "X-Attempt"), "2", "\(form): the adapted request")
        }
    }

    func testTimeout_isToldOnce_asTheTimeout() throws {
        for form in Form.allCases {
            let recorder = EndRecorder()
            let client = try makeClient(form, recorder)
            transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 100))
            let failures = SpecLocked<[String]>([])

            let subscription = subscribe(form, client, PipelineEndpoint(timeout: 5), failures: failures)
            scheduler.advanceTo(scheduler.clock + 200)
            subscription.dispose()

            XCTAssertEqual(recorder.summaries, ["failed(\(LeashError.timeout(seconds: 5))) after 1"], "\(form)")
            XCTAssertEqual(failures.value, ["\(LeashError.timeout(seconds: 5))"], "\(form)")
        }
    }

    /// For every form, without and with a timeout: starts an execution that takes 10 s,
    /// runs `interrupt` 5 s in, lets 100 s pass, and checks what the end observer and the
    /// subscriber were told.
    private func interruptEveryForm(
        expecting summary: String, failures expected: [String],
        _ interrupt: (_ client: Client, _ subscription: Disposable) -> Void
    ) throws {
        for form in Form.allCases {
            for timeout in [nil, 60 as TimeInterval?] {
                let context = "\(form), timeout \(String(describing: timeout))"
                let recorder = EndRecorder()
                let client = try makeClient(form, recorder)
                transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 10))
                let failures = SpecLocked<[String]>([])

                let subscription = subscribe(form, client, PipelineEndpoint(timeout: timeout), failures: failures)
                scheduler.advanceTo(scheduler.clock + 5)
                XCTAssertEqual(recorder.summaries, [], "\(context): not yet")
                interrupt(client, subscription)
                scheduler.advanceTo(scheduler.clock + 100)
                subscription.dispose()

                XCTAssertEqual(recorder.summaries, [summary], context)
                XCTAssertEqual(failures.value, expected, context)
            }
        }
    }

    func testDispose_isToldOnce_asDisposed_andNothingAfter() throws {
        try interruptEveryForm(expecting: "disposed after 1", failures: []) { _, subscription in
            subscription.dispose()
            subscription.dispose()
        }
    }

    func testCancelAll_isToldOnce_asCancelled() throws {
        try interruptEveryForm(
            expecting: "failed(\(LeashError.cancelled)) after 1", failures: ["\(LeashError.cancelled)"]
        ) { client, _ in
            client.manager.cancelAll()
        }
    }

    func testCancelAll_whileAGateHoldsTheFirstAttempt_hasNoLastAttempt() throws {
        let recorder = EndRecorder()
        let client = try makeClient(.values, recorder) { $0.gate(ClosedGate()) }
        let failures = SpecLocked<[String]>([])

        let subscription = subscribe(.values, client, PipelineEndpoint(), failures: failures)
        client.manager.cancelAll()
        subscription.dispose()

        XCTAssertEqual(recorder.summaries, ["failed(\(LeashError.cancelled)) after 0"])
        XCTAssertNil(recorder.ends.first?.lastAttempt)
        XCTAssertEqual(recorder.ends.first?.endpoint.path, "/users/1")
    }

    func testCallbackAndAsyncForms_areToldOnce() async throws {
        let recorder = EndRecorder()
        let client = try makePipelineClient(StubTransport().stub(path: "/v1/users/1", .json(specAliceJSON))) {
            $0.add(interceptor: recorder)
        }
        let done = expectation(description: "the callback")
        client.execute(PipelineEndpoint(), serializer: DataResponseSerializer()) { _ in done.fulfill() }
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(recorder.summaries, ["completed after 1"], "told before the callback")

        _ = try await client.execute(PipelineEndpoint(), serializer: DataResponseSerializer())
        XCTAssertEqual(recorder.summaries, ["completed after 1", "completed after 1"])
    }
}

/// Records each end it is told of.
final class EndRecorder: ExecutionEndObserver, @unchecked Sendable {
    // @unchecked: `recorded` is locked.
    private let recorded = SpecLocked<[ExecutionEnd]>([])

    func executionDidEnd(_ end: ExecutionEnd) {
        recorded.withLock { $0.append(end) }
    }

    var ends: [ExecutionEnd] { recorded.value }

    /// `completed after N`, `failed(<error>) after N` or `disposed after N`, N the attempts.
    var summaries: [String] {
        ends.map { end in
            switch end.outcome {
            case .completed: return "completed after \(end.attempts)"
            case .failed(let error): return "failed(\(error)) after \(end.attempts)"
            case .disposed: return "disposed after \(end.attempts)"
            }
        }
    }
}

/// Retries the first attempt once, at the completion stage.
private struct RetryingOnceCompletion: CompletionInterceptor {
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        guard chain.attempt == 1 else { return chain.proceed() }
        do {
            try chain.retry()
        } catch {
            chain.complete(with: error)
        }
    }
}

/// A gate that never lets an attempt go.
private struct ClosedGate: RequestGate {
    func admission(for endpoint: Endpoint, attempt: Int) -> Completable? {
        Completable.create { _ in Disposables.create() }
    }
}
