import Foundation
import Leash
import Rx

/// Retries failed executions after a backoff, as its `RetryPolicy` says.
///
/// ```swift
/// let manager = try Manager.Builder()
///     .url("https://api.example.com")
///     .add(interceptor: RetryInterceptor(policy: RetryPolicy(maximumAttempts: 4)))
///     .build()
/// ```
///
/// It is an `OperatorInterceptor`: it sees each outcome after the completion
/// interceptors, where a status outside the acceptable ones is already a failure
/// (`LeashError.unacceptableStatusCode`) and a transport failure is `LeashError.transport`.
/// A failure the policy retries is held back; after the delay the execution runs again
/// from the start (the request is built anew, every interceptor runs again, `attempt` is
/// one higher). Anything else passes through unchanged.
///
/// - The delay is a timer on `scheduler`: disposing the execution while it waits cancels
///   it, and nothing more is sent. With no scheduler given, it is the manager's scheduler
///   (a background queue unless the manager was given one, such as a `TestScheduler`,
///   which makes retries run in virtual time together with Leash's timeouts).
/// - An execution's timeout covers its retries and the waits between them.
/// - When no attempt is left, the last failure reaches the caller as it is (the
///   `LeashError` with its status, headers and body, or the transport error). Attempts are
///   bounded by both `policy.maximumAttempts` and the manager's `maximumRetryCount` (which
///   counts every retry of the execution, this interceptor's and others'): this
///   interceptor stops at whichever comes first, so the caller never gets
///   `retryLimitExceeded` from it, only the failure that ended the last attempt.
public struct RetryInterceptor: OperatorInterceptor, RetryForecasting, Sendable {
    /// What is retried, how often and after how long.
    public let policy: RetryPolicy
    /// Where the waits run; `nil` for the manager's scheduler.
    public let scheduler: SchedulerType?

    /// Creates the interceptor.
    ///
    /// - Parameters:
    ///   - policy: What is retried, how often and after how long (default `.default`).
    ///   - scheduler: Where the waits run; `nil` (the default) for the manager's
    ///     scheduler, which is never the main queue unless you make it so.
    public init(policy: RetryPolicy = .default, scheduler: SchedulerType? = nil) {
        self.policy = policy
        self.scheduler = scheduler
    }

    /// Holds back each failure the policy retries and runs the execution again after the
    /// delay; passes everything else through.
    public func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext)
        -> Observable<Response<Data>>
    {
        let policy = self.policy
        let scheduler = self.scheduler ?? context.client.manager.scheduler
        return upstream.flatMap { response -> Observable<Response<Data>> in
            guard case .failure(let error) = response,
                context.canRetry,
                let delay = policy.retryDelay(
                    after: error, method: context.endpoint.method, attempt: context.attempt, now: scheduler.now)
            else { return .just(response) }
            guard let milliseconds = Self.milliseconds(delay), milliseconds > 0 else {
                return context.retry(after: error)
            }
            return Observable<Int>.timer(.milliseconds(milliseconds), scheduler: scheduler)
                .flatMap { _ in context.retry(after: error) }
        }
    }

    /// A failure the policy retries (the test of `intercept(_:context:)`, without drawing a
    /// jittered delay), so that a logger reports a retry rather than an error.
    public func retryForecast(for response: Response<Data>, chain: InterceptorChain<Data>) -> String? {
        guard case .failure(let error) = response, chain.canRetry,
            chain.attempt < policy.maximumAttempts, policy.retryableMethods.contains(chain.endpoint.method),
            policy.isRetryable(error)
        else { return nil }
        return "retrying (attempt \(chain.attempt + 1) of \(policy.maximumAttempts))"
    }

    /// `seconds` as whole milliseconds for the timer (`nil` if it is not a number).
    private static func milliseconds(_ seconds: TimeInterval) -> Int? {
        guard seconds.isFinite else { return nil }
        return Int((min(max(seconds, 0), RetryPolicy.longestDelay) * 1000).rounded())
    }
}
