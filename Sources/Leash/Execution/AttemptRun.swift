import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One attempt of an execution up to the completion interceptors, as one observable of
/// outcomes (`Response<Data>`): execution interceptors → transport → success or failure
/// interceptors and status validation → completion interceptors.
///
/// Each of these stages is a step of one state machine (`AttemptRun`) rather than a chain
/// of general-purpose operators: an execution costs one object for the attempt and one
/// chain per interceptor call, instead of a producer, a sink and closures per stage, which
/// is what keeps Leash's overhead a few percent of a request's cost. Operator
/// interceptors and serialization, which are written as stream operators, compose on the
/// observable this produces.
///
/// What the stages promise (and the tests check):
/// - interceptors of a kind run one after another, in the order added; each may call back
///   from any thread, at any time;
/// - an outcome produced early (`complete(…, finish: false)`) or by an interceptor goes
///   through the completion interceptors like any other, in the order produced, one at a
///   time;
/// - `retry()` ends the attempt with `RetrySignal`, which the pipeline turns into the next
///   attempt;
/// - disposing cancels the transport's request and ignores later interceptor calls.
struct AttemptProducer: ObservableType, @unchecked Sendable {
    // @unchecked: immutable.
    typealias Element = Response<Data>

    let stages: DataStages
    let request: Result<URLRequest, Swift.Error>
    let context: ExecutionContext

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Response<Data> {
        let run = AttemptRun(stages: stages, context: context, observer: AnyObserver(observer))
        run.start(request)
        return run
    }
}

/// The state machine of one attempt.
final class AttemptRun: Disposable, @unchecked Sendable {
    // @unchecked: the mutable state is behind `lock`; the rest is immutable after `init`.
    private let stages: DataStages
    private let context: ExecutionContext
    private let output: SerialObserver<Response<Data>>
    private let lock = NSLock()
    private var isDisposed = false
    private var transport: Disposable?
    /// Outcomes waiting for the completion interceptors, which take one at a time.
    private var pendingOutcomes: [Response<Data>] = []
    private var isCompleting = false
    /// Whether the source stages (execution, transport, success/failure) are done.
    private var isSourceFinished = false

    init(stages: DataStages, context: ExecutionContext, observer: AnyObserver<Response<Data>>) {
        self.stages = stages
        self.context = context
        self.output = SerialObserver(observer)
    }

    private var interceptors: InterceptorSet { stages.interceptors }

    func start(_ request: Result<URLRequest, Swift.Error>) {
        switch request {
        case .success(let urlRequest):
            runExecution(at: 0, urlRequest)
        case .failure(let error):
            // Nothing to send: the failure goes straight to the completion interceptors,
            // which may still turn it around or retry.
            finishSource(with: .failure(LeashError.wrapping(error)))
        }
    }

    func dispose() {
        let transport = lock.withLock { () -> Disposable? in
            isDisposed = true
            pendingOutcomes.removeAll()
            defer { self.transport = nil }
            return self.transport
        }
        output.release()
        transport?.dispose()
    }

    private var disposed: Bool { lock.withLock { isDisposed } }

    private func chain(cause: Swift.Error? = nil, onDecision: @escaping @Sendable (InterceptorDecision<Data>) -> Void)
        -> InterceptorChain<Data>
    {
        InterceptorChain(
            client: context.client, endpoint: context.endpoint, request: context.request, attempt: context.attempt,
            cause: cause, onDecision: onDecision)
    }

    // MARK: Source stages

    private func runExecution(at index: Int, _ urlRequest: URLRequest) {
        guard !disposed else { return }
        guard index < interceptors.execution.count else {
            send(urlRequest)
            return
        }
        interceptors.execution[index].intercept(
            chain: chain { [self] decision in
                switch decision {
                case .proceed: runExecution(at: index + 1, urlRequest)
                case .interim(let response): enqueueOutcome(response.fromInterceptor())
                case .complete(let response): finishSource(with: response.fromInterceptor())
                case .retry: fail(RetrySignal(lastError: nil))
                }
            })
    }

    private func send(_ urlRequest: URLRequest) {
        stages.progress.send(.requestSent(urlRequest, attempt: context.attempt))
        let received = ReceivedFlag()
        let subscription = stages.client.manager.transport.send(urlRequest).subscribe(
            onNext: { [self] response in
                received.set()
                stages.progress.send(
                    .responseReceived(response.httpResponse, data: response.data, attempt: context.attempt))
                runSuccess(at: 0, response, urlRequest)
            },
            onError: { [self] error in runFailure(at: 0, error) },
            onCompleted: { [self] in
                if !received.isSet {
                    runFailure(at: 0, LeashError.invalidResponse(reason: "the transport completed without a response"))
                }
            })
        let disposeNow = lock.withLock { () -> Bool in
            if isDisposed { return true }
            transport = subscription
            return false
        }
        if disposeNow { subscription.dispose() }
    }

    private func runSuccess(at index: Int, _ response: TransportResponse, _ urlRequest: URLRequest) {
        guard !disposed else { return }
        guard index < interceptors.success.count else {
            finishSource(with: stages.validated(response, request: urlRequest))
            return
        }
        interceptors.success[index].intercept(
            chain: chain { [self] decision in
                switch decision {
                case .proceed: runSuccess(at: index + 1, response, urlRequest)
                case .interim(let result): enqueueOutcome(result.fromInterceptor())
                case .complete(let result): finishSource(with: result.fromInterceptor())
                case .retry: fail(RetrySignal(lastError: nil))
                }
            },
            response: response.httpResponse, data: response.data)
    }

    private func runFailure(at index: Int, _ error: Swift.Error) {
        guard !disposed else { return }
        guard index < interceptors.failure.count else {
            finishSource(with: .failure(error))
            return
        }
        interceptors.failure[index].intercept(
            chain: chain(cause: error) { [self] decision in
                switch decision {
                case .proceed: runFailure(at: index + 1, error)
                case .interim(let result): enqueueOutcome(result.fromInterceptor())
                case .complete(let result): finishSource(with: result.fromInterceptor())
                case .retry: fail(RetrySignal(lastError: error))
                }
            },
            error: error)
    }

    /// The source stages produced their last outcome.
    private func finishSource(with response: Response<Data>) {
        let release = lock.withLock { () -> Disposable? in
            defer { transport = nil }
            return transport
        }
        // The transport's subscription has ended (or ends now): let it go.
        withExtendedLifetime(release) {}
        enqueueOutcome(response, isLast: true)
    }

    // MARK: Completion stage

    /// Queues an outcome for the completion interceptors, which take one at a time in
    /// the order produced; starts processing if nothing is in progress.
    private func enqueueOutcome(_ response: Response<Data>, isLast: Bool = false) {
        let next = lock.withLock { () -> Response<Data>? in
            if isDisposed { return nil }
            if isLast { isSourceFinished = true }
            pendingOutcomes.append(response)
            if isCompleting { return nil }
            isCompleting = true
            return pendingOutcomes.removeFirst()
        }
        if let next { runCompletion(at: 0, next) }
    }

    private func runCompletion(at index: Int, _ response: Response<Data>) {
        guard !disposed else { return }
        guard index < interceptors.completion.count else {
            output.onNext(response)
            nextOutcome()
            return
        }
        let cause = response.error
        interceptors.completion[index].intercept(
            chain: chain(cause: cause) { [self] decision in
                switch decision {
                case .proceed: runCompletion(at: index + 1, response)
                case .interim(let result): output.onNext(result.fromInterceptor())
                case .complete(let result):
                    output.onNext(result.fromInterceptor())
                    nextOutcome()
                case .retry: fail(RetrySignal(lastError: cause))
                }
            },
            response: response)
    }

    /// Takes the next queued outcome, or ends the attempt if the source is done.
    private func nextOutcome() {
        enum Step {
            case process(Response<Data>)
            case finish
            case wait
        }
        let step = lock.withLock { () -> Step in
            if isDisposed { return .wait }
            if !pendingOutcomes.isEmpty { return .process(pendingOutcomes.removeFirst()) }
            isCompleting = false
            return isSourceFinished ? .finish : .wait
        }
        switch step {
        case .process(let response): runCompletion(at: 0, response)
        case .finish: output.onCompleted()
        case .wait: break
        }
    }

    private func fail(_ error: Swift.Error) {
        guard !disposed else { return }
        output.onError(error)
        dispose()
    }
}

/// Whether a transport delivered its response (its completion alone is not one).
private final class ReceivedFlag: @unchecked Sendable {
    // @unchecked: behind `lock`.
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
