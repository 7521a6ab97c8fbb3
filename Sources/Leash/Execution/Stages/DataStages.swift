import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The stages before serialization, on `Response<Data>`: build the request, then one
/// `AttemptProducer` (execution interceptors, transport, success/failure interceptors and
/// validation, completion interceptors), then the operator interceptors.
///
/// Deliberately not generic over the value type, so that nothing here pays for generic
/// metadata at run time.
///
/// A class, not a struct: the stages are captured by several closures and objects per
/// execution, and one reference is cheaper to pass around than their copies.
final class DataStages: @unchecked Sendable {
    // @unchecked: immutable; the endpoint and interceptors are the app's, only read.
    let client: Client
    let endpoint: Endpoint
    let interceptors: InterceptorSet
    let progress: ProgressSink
    let acceptableStatusCodes: Set<Int>
    /// What operator interceptors record across this execution's attempts; only they see
    /// it, so it is made only when there are some.
    let marks: ExecutionMarks?
    /// The end the manager's end observers are told of; `nil` without any.
    let ending: ExecutionEnding?
    /// Where the transport hands its answers, if not on its own queue.
    let handoff: ResponseHandoff?
    /// The subscription's time limits, if it has any.
    let deadline: ExecutionDeadline?
    /// What the subscription moves besides small bodies (files, progress), if anything.
    let transfer: ExecutionTransfer?
    /// What suspends and resumes the execution (the callback forms' handle), if anything.
    let control: DataRequest?
    /// Changes each attempt's request once built (see `ExecutionPipeline.adaptRequest`).
    let adaptRequest: (@Sendable (inout URLRequest) -> Void)?

    init(
        client: Client, endpoint: Endpoint, interceptors: InterceptorSet, progress: ProgressSink,
        handoff: ResponseHandoff? = nil, deadline: ExecutionDeadline? = nil, transfer: ExecutionTransfer? = nil,
        control: DataRequest? = nil, adaptRequest: (@Sendable (inout URLRequest) -> Void)? = nil
    ) {
        self.adaptRequest = adaptRequest
        self.transfer = transfer
        self.control = control
        self.client = client
        self.endpoint = endpoint
        self.interceptors = interceptors
        self.progress = progress
        self.handoff = handoff
        self.deadline = deadline
        self.acceptableStatusCodes = endpoint.acceptableStatusCodes ?? client.manager.acceptableStatusCodes
        self.marks = interceptors.operators.isEmpty ? nil : ExecutionMarks()
        self.ending = ExecutionEnding(observers: interceptors.endObservers)
    }

    /// The outcomes of attempt `attempt` and, on `RetrySignal`, of the next ones, up to the
    /// manager's retry limit.
    ///
    /// Without operator interceptors (which are composed per attempt) and request gates
    /// (which each attempt waits on) the attempt's state machine retries in place;
    /// otherwise each attempt is composed anew.
    func outcomesWithRetries(from attempt: Int) -> Observable<Response<Data>> {
        if retriesInPlace {
            return AttemptProducer(stages: self, start: .retryingInPlace(fromAttempt: attempt)).asObservable()
        }
        let stages = self
        return admitted(attempt, Observable.deferred { stages.attempt(attempt).0 })
            .catch { error in
                do {
                    try stages.prepareRetry(after: error, attempt: attempt)
                } catch {
                    return .error(error)
                }
                return stages.outcomesWithRetries(from: attempt + 1)
            }
    }

    /// Whether one attempt's state machine can run every attempt (see
    /// `outcomesWithRetries`).
    var retriesInPlace: Bool {
        interceptors.operators.isEmpty && client.manager.requestGates.isEmpty
    }

    /// Subscribes `observer` to the outcomes of every attempt from the first: as
    /// `outcomesWithRetries(from: 1)`, without the observable around the state machine
    /// when it retries in place.
    func subscribeOutcomes(_ observer: AnyObserver<Response<Data>>) -> Disposable {
        guard retriesInPlace else { return outcomesWithRetries(from: 1).subscribe(observer) }
        return AttemptProducer(stages: self, start: .retryingInPlace(fromAttempt: 1)).run(observer)
    }

    /// Decides whether an attempt that ended with `error` is followed by another:
    /// announces the retry, or throws the error that ends the execution (`error` itself,
    /// or `retryLimitExceeded` once `maximumRetryCount` retries are used up).
    func prepareRetry(after error: Swift.Error, attempt: Int) throws {
        guard let signal = error as? RetrySignal else { throw error }
        guard attempt <= client.manager.maximumRetryCount else {
            throw LeashError.retryLimitExceeded(attempts: attempt, lastError: signal.lastError)
        }
        // A settled deadline runs again for the next attempt, and `cancelAll()` reaches
        // the execution again.
        try deadline?.rearm()
        client.manager.executions.unsettle(ObjectIdentifier(self))
        progress.send(.retrying(attempt: attempt + 1))
    }

    /// The outcomes of one attempt, and its context (for the serialization stage).
    func attempt(_ attempt: Int) -> (Observable<Response<Data>>, ExecutionContext) {
        let (request, context) = prepare(attempt)
        let outcomes = AttemptProducer(stages: self, start: .prepared(request, context)).asObservable()
        return (operatorStage(outcomes, context: context), context)
    }

    /// Builds the request of attempt `attempt` (reporting it) and its context.
    func prepare(_ attempt: Int) -> (Result<URLRequest, Swift.Error>, ExecutionContext) {
        do {
            var urlRequest = try client.urlRequest(for: endpoint)
            adaptRequest?(&urlRequest)
            progress.send(.requestPrepared(urlRequest, attempt: attempt))
            let context = ExecutionContext(
                client: client, endpoint: endpoint, request: DataRequest(urlRequest), attempt: attempt, marks: marks,
                ending: ending)
            return (.success(urlRequest), context)
        } catch {
            let context = ExecutionContext(
                client: client, endpoint: endpoint, request: DataRequest(URLRequest(url: client.manager.baseURL)),
                attempt: attempt, marks: marks, ending: ending)
            return (.failure(error), context)
        }
    }

    /// The request as the transport's `transfer` takes it, or `nil` for a plain request
    /// (the transport's fast path: a body in memory, no progress, no file).
    func transportRequest(for urlRequest: URLRequest) throws -> TransportRequest? {
        guard let transfer else { return nil }
        var request = urlRequest
        let body = try transfer.body(for: endpoint, request: &request)
        let destination = try transfer.destination()
        guard transfer.reportsProgress || body != .inRequest || destination != .memory else { return nil }
        // A download's retry asks for the rest of its file: shown in the request events
        // and interceptors see.
        _ = TransferBodyPlan.requestRange(for: destination, in: &request)
        return TransportRequest(
            request, body: body, destination: destination, reportsProgress: transfer.reportsProgress)
    }

    /// What a redirect does (the endpoint's policy, else the manager's): read when a
    /// redirect arrives, not for every execution.
    var redirectPolicy: RedirectPolicy {
        endpoint.redirectPolicy ?? client.manager.redirectPolicy
    }

    /// Whether the response's body is handed on in chunks (a stream).
    var streams: Bool { transfer?.streams ?? false }

    /// The final value of an attempt is about to be delivered: neither the deadline nor
    /// `cancelAll()` can end the execution from now on (see `ExecutionDeadline` and
    /// `ExecutionRegistry`), unless a retry follows. Returns false if one of them won the
    /// race: then the value must not be delivered, since that end is on its way.
    func settle() -> Bool {
        if let deadline, !deadline.settle() { return false }
        return client.manager.executions.settle(ObjectIdentifier(self))
    }

    /// The execution is over: the files it made are removed.
    func release() {
        transfer?.release()
    }

    /// The response as an outcome: a value if its status is acceptable, else
    /// `LeashError.unacceptableStatusCode`.
    func validated(_ response: TransportResponse, request: URLRequest) -> Response<Data> {
        let status = response.httpResponse.statusCode
        guard acceptableStatusCodes.contains(status) else {
            let failure = StatusCodeFailure(
                statusCode: status, headers: HTTPHeaders(response.httpResponse), body: response.data,
                response: response.httpResponse, request: request)
            return .failure(LeashError.unacceptableStatusCode(failure))
        }
        let extra = ResponseExtra(
            source: .network, request: request, httpResponse: response.httpResponse, data: response.data,
            bodyFile: response.file, metrics: response.metrics)
        return .success(value: response.data, extra: extra)
    }

    private func operatorStage(_ outcomes: Observable<Response<Data>>, context: ExecutionContext)
        -> Observable<Response<Data>>
    {
        interceptors.operators.reduce(outcomes) { stream, interceptor in
            interceptor.intercept(stream, context: context)
        }
    }
}
