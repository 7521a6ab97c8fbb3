import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an interceptor uses to say how the execution goes on.
///
/// Call exactly one of `proceed()`, `complete(…, finish: true)` or `retry()`; the first
/// such call decides, later ones are ignored. `complete(…, finish: false)` may come
/// before it, any number of times: it hands back a value at once and lets the execution
/// carry on (a cache answering first, the network after). Calls may come from any thread,
/// at any time; once the execution was cancelled or timed out, they do nothing.
///
/// Errors passed to `complete(with:)` reach the caller as they are (your own error types
/// stay yours), so a later interceptor can match them, as Leash's README does with
/// `case Error.unauthorized = error`.
public final class InterceptorChain<T>: @unchecked Sendable {
    // @unchecked: the decision state is one atomic; the rest is immutable.

    /// The client executing the request.
    public var client: Client { context.client }
    /// The endpoint being executed.
    public var endpoint: Endpoint { context.endpoint }
    /// The request (`request.convertible.asURLRequest()` gives the `URLRequest`).
    public var request: DataRequest { context.request }
    /// The request the attempt began with (see `ExecutionContext.attemptRequest`): what
    /// identifies the attempt across its stages, whatever replaced `request` meanwhile.
    package var attemptRequest: DataRequest { context.attemptRequest }
    /// Which attempt this is: 1, then 2… after each `retry()`.
    public var attempt: Int { context.attempt }
    /// Whether `retry()` would run the execution again now: the manager's
    /// `maximumRetryCount` is not used up (see `Manager.allowsRetry(afterAttempt:)`).
    public var canRetry: Bool { context.canRetry }

    /// The attempt's context: what the properties above read, the execution's marks, and
    /// what request adapters are given.
    let context: ExecutionContext
    /// The error this stage is handling, if any: kept as `lastError` when a retry is refused.
    private let cause: Swift.Error?
    /// 1 once decided (an atomic, not a lock: one allocation less per interceptor call).
    private let decided = AtomicInt(0)
    private let onDecision: @Sendable (InterceptorDecision<T>) -> Void

    init(
        context: ExecutionContext, cause: Swift.Error?,
        onDecision: @escaping @Sendable (InterceptorDecision<T>) -> Void
    ) {
        self.context = context
        self.cause = cause
        self.onDecision = onDecision
    }

    /// Whether an attempt of this execution recorded `mark` with
    /// `ExecutionContext.mark(_:)` (an operator interceptor that acts once per execution,
    /// such as the token refresher's retry). `false` when the manager has no operator
    /// interceptors, since nothing can mark then.
    public func isMarked(_ mark: String) -> Bool {
        context.marks?.contains(mark) ?? false
    }

    /// Lets the next interceptor (or the next stage) run.
    public func proceed() {
        decide(.proceed)
    }

    /// At the execution stage, lets the next interceptor run with `request` in place of
    /// this chain's: the later execution interceptors see it, the transport sends it, and
    /// the interceptors of the later stages see it as the request. This is how a request
    /// is adapted before it goes out (signed, given a header computed at send time, a
    /// credential in its query): every attempt builds its request anew and runs the
    /// execution interceptors again, so a retried request is adapted again.
    ///
    /// At the other stages the request was already sent: the same as `proceed()`.
    public func proceed(with request: URLRequest) {
        decide(.proceedWith(request))
    }

    /// Completes with `response`. With `finish: true` (the default) the interceptors of
    /// this kind after this one are skipped and `response` goes on to the next stage
    /// (at the execution stage, the network is skipped too); with `finish: false` the
    /// response is handed back now and this interceptor must still decide how to go on.
    ///
    /// A value completed at the execution, success or failure stage is still seen by the
    /// completion and serialization interceptors, and is serialized like a body; it is
    /// marked `.interceptor` in `Response.source` unless its `extra` is already a
    /// `ResponseExtra`.
    public func complete(with response: Response<T>, finish: Bool = true) {
        if finish {
            decide(.complete(response))
        } else {
            if decided.load() == 0 { onDecision(.interim(response)) }
        }
    }

    /// Completes with a value (see `complete(with:finish:)`); `extra` is kept as
    /// `ResponseExtra.interceptorExtra`.
    public func complete(with value: T, extra: Any? = nil, finish: Bool = true) {
        complete(with: .success(value: value, extra: extra), finish: finish)
    }

    /// Completes with an error (see `complete(with:finish:)`).
    public func complete(with error: Swift.Error, finish: Bool = true) {
        complete(with: .failure(error), finish: finish)
    }

    /// Runs the execution again from the start: the request is built anew (so a refreshed
    /// credential is sent) and every interceptor runs again, with `attempt` one higher.
    /// Values already handed back stay handed back.
    ///
    /// - Throws: `LeashError.retryLimitExceeded` (with the error this stage was handling
    ///   as `lastError`) when the manager's `maximumRetryCount` retries are used up; the
    ///   chain is then still undecided, so the interceptor must still call `proceed()` or
    ///   `complete(…)`.
    public func retry() throws {
        // The interceptor learns of the refusal (and decides how the execution ends)
        // rather than the execution failing under it: it may let the failure it was
        // handling through with `proceed()`. `context.retry(after:)`, which has no one to
        // tell, fails the execution with the same error.
        guard canRetry else {
            throw LeashError.retryLimitExceeded(attempts: attempt, lastError: cause)
        }
        decide(.retry)
    }

    private func decide(_ decision: InterceptorDecision<T>) {
        if decided.compareExchange(expected: 0, desired: 1) { onDecision(decision) }
    }
}

/// What an interceptor decided.
enum InterceptorDecision<T> {
    case proceed
    /// `proceed(with:)`: a new request, at the execution stage.
    case proceedWith(URLRequest)
    case interim(Response<T>)
    case complete(Response<T>)
    case retry
}
