import Foundation
import Rx

/// What an interceptor uses to say how the execution goes on.
///
/// Call exactly one of `proceed()`, `complete(…, finish: true)` or `retry()`; the first
/// such call decides, later ones are ignored. `complete(…, finish: false)` may come
/// before it: it hands back a value at once and lets the execution carry on (a cache
/// answering first, the network after). Calls may come from any thread.
public final class InterceptorChain<T>: @unchecked Sendable {
    // @unchecked: the decision state is behind `lock`; the rest is immutable.

    /// The client executing the request.
    public let client: Client
    /// The endpoint being executed.
    public let endpoint: Endpoint
    /// The request (`request.convertible.asURLRequest()` gives the `URLRequest`).
    public let request: DataRequest
    /// Which attempt this is: 1, then 2… after each `retry()`.
    public let attempt: Int

    private let lock = NSLock()
    private var isDecided = false
    private let onDecision: @Sendable (InterceptorDecision<T>) -> Void

    init(
        client: Client, endpoint: Endpoint, request: DataRequest, attempt: Int,
        onDecision: @escaping @Sendable (InterceptorDecision<T>) -> Void
    ) {
        self.client = client
        self.endpoint = endpoint
        self.request = request
        self.attempt = attempt
        self.onDecision = onDecision
    }

    /// Lets the next interceptor (or the next stage) run.
    public func proceed() {
        decide(.proceed)
    }

    /// Completes with `response`. With `finish: true` (the default) the interceptors of
    /// this kind after this one are skipped and the execution ends with `response`; with
    /// `finish: false` the response is handed back now and the execution carries on.
    public func complete(with response: Response<T>, finish: Bool = true) {
        if finish {
            decide(.complete(response))
        } else {
            let isDecided = lock.withLock { self.isDecided }
            if !isDecided { onDecision(.interim(response)) }
        }
    }

    /// Completes with a value (see `complete(with:finish:)`).
    public func complete(with value: T, extra: Any? = nil, finish: Bool = true) {
        complete(with: .success(value: value, extra: extra), finish: finish)
    }

    /// Completes with an error (see `complete(with:finish:)`).
    public func complete(with error: Swift.Error, finish: Bool = true) {
        complete(with: .failure(error), finish: finish)
    }

    /// Runs the execution again from the start (building the request anew, so a
    /// refreshed credential is used).
    ///
    /// - Throws: `LeashError.retryLimitExceeded` when the manager's
    ///   `maximumRetryCount` is used up; the chain is then still undecided.
    public func retry() throws {
        let limit = client.manager.maximumRetryCount
        guard attempt <= limit else {
            throw LeashError.retryLimitExceeded(attempts: attempt, lastError: nil)
        }
        decide(.retry)
    }

    private func decide(_ decision: InterceptorDecision<T>) {
        let first = lock.withLock { () -> Bool in
            if isDecided { return false }
            isDecided = true
            return true
        }
        if first { onDecision(decision) }
    }
}

/// What an interceptor decided.
enum InterceptorDecision<T> {
    case proceed
    case interim(Response<T>)
    case complete(Response<T>)
    case retry
}

/// The outcome of running every interceptor of one kind for one input.
enum StageOutcome<T> {
    /// A value handed back early (`finish: false`).
    case interim(Response<T>)
    /// Every interceptor proceeded.
    case proceed
    /// An interceptor completed the stage.
    case complete(Response<T>)
    /// An interceptor asked to retry the execution.
    case retry
}

extension StageOutcome: @unchecked Sendable {}

/// Runs interceptors one after another as an observable: it emits `interim` outcomes as
/// they come and ends with one of `proceed`, `complete` or `retry`. Disposing it stops
/// before the next interceptor.
func interceptorStage<T, Kind>(
    _ interceptors: [Kind], context: ExecutionContext,
    invoke: @escaping @Sendable (Kind, InterceptorChain<T>) -> Void
) -> Observable<StageOutcome<T>> {
    if interceptors.isEmpty { return .just(.proceed) }
    let list = UncheckedInterceptors(interceptors)
    return Observable.create { observer in
        let runner = StageRunner(interceptors: list, context: context, invoke: invoke, observer: observer)
        runner.run(index: 0)
        return Disposables.create { runner.cancel() }
    }
}

/// The interceptors of a stage: the app's objects, which Leash calls from any thread,
/// as Leash always has.
private struct UncheckedInterceptors<Kind>: @unchecked Sendable {
    let values: [Kind]
    init(_ values: [Kind]) { self.values = values }
}

private final class StageRunner<T, Kind>: @unchecked Sendable {
    // @unchecked: `isCancelled` is behind `lock`; the rest is immutable.
    private let interceptors: UncheckedInterceptors<Kind>
    private let context: ExecutionContext
    private let invoke: @Sendable (Kind, InterceptorChain<T>) -> Void
    private let observer: AnyObserver<StageOutcome<T>>
    private let lock = NSLock()
    private var isCancelled = false

    init(
        interceptors: UncheckedInterceptors<Kind>, context: ExecutionContext,
        invoke: @escaping @Sendable (Kind, InterceptorChain<T>) -> Void, observer: AnyObserver<StageOutcome<T>>
    ) {
        self.interceptors = interceptors
        self.context = context
        self.invoke = invoke
        self.observer = observer
    }

    func cancel() {
        lock.withLock { isCancelled = true }
    }

    func run(index: Int) {
        guard !lock.withLock({ isCancelled }) else { return }
        guard index < interceptors.values.count else {
            observer.onNext(.proceed)
            observer.onCompleted()
            return
        }
        let chain = InterceptorChain<T>(
            client: context.client, endpoint: context.endpoint, request: context.request, attempt: context.attempt
        ) { [self] decision in
            switch decision {
            case .proceed:
                run(index: index + 1)
            case .interim(let response):
                observer.onNext(.interim(response))
            case .complete(let response):
                observer.onNext(.complete(response))
                observer.onCompleted()
            case .retry:
                observer.onNext(.retry)
                observer.onCompleted()
            }
        }
        invoke(interceptors.values[index], chain)
    }
}
