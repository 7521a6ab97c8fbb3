import Foundation

/// Told once when each execution of its manager ends, whatever ended it: its last value
/// delivered and the stream completed, a failure (one that passed the completion
/// interceptors, or one raised after them: a token refresh that failed, a serialization
/// error, the timeout, `Manager.cancelAll()`), or the subscriber disposing it before its
/// end.
///
/// The interceptors of the five kinds see each attempt; this sees the execution's end,
/// which they cannot: an error raised after the completion stage reaches the caller
/// without passing them again. `LoggerInterceptor` adopts it to log such failures.
///
/// ```swift
/// final class EndCounter: ExecutionEndObserver, @unchecked Sendable {
///     // @unchecked: `failures` is only touched under `lock`.
///     private let lock = NSLock()
///     private var failures = 0
///
///     func executionDidEnd(_ end: ExecutionEnd) {
///         if end.error != nil { lock.withLock { failures += 1 } }
///     }
/// }
/// ```
///
/// Add it like any interceptor (`Manager.Builder().add(interceptor:)`). A manager whose
/// interceptors include no end observer pays nothing for the hook.
public protocol ExecutionEndObserver: Interceptor {
    /// The execution ended as `end` says. Called exactly once per execution, on the thread
    /// that ended it, before its subscriber is told of the end (for a dispose, during
    /// it); end observers are called in the order they were added. Keep it short: the
    /// end waits for it.
    func executionDidEnd(_ end: ExecutionEnd)
}

/// How an execution ended, and what it was: what an `ExecutionEndObserver` is told.
public struct ExecutionEnd: @unchecked Sendable {
    // @unchecked: immutable; the endpoint is the app's value, only read (as in
    // `ExecutionContext`).

    /// What ended the execution.
    public enum Outcome: Sendable {
        /// The stream completed: every value was delivered.
        case completed
        /// The stream failed with this error: the failure of the last attempt, an error
        /// raised after the completion stage (`LeashError.authenticationFailed` when a token
        /// refresh failed, a serialization error), `LeashError.timeout` or, from
        /// `Manager.cancelAll()`, `LeashError.cancelled`.
        case failed(Swift.Error)
        /// The subscriber disposed the execution before its end (nothing more was delivered).
        case disposed
    }

    /// What ended the execution.
    public let outcome: Outcome
    /// The client that executed.
    public let client: Client
    /// The endpoint executed.
    public let endpoint: Endpoint
    /// The context of the last attempt that began: its request as the later stages saw it
    /// (after the execution interceptors adapted it) and its number. `nil` if the
    /// execution ended before its first attempt began (while a `RequestGate` held it back).
    public let lastAttempt: ExecutionContext?

    /// How many attempts began: `lastAttempt`'s number, 0 if none did.
    public var attempts: Int { lastAttempt?.attempt ?? 0 }

    /// The error that ended the execution, if it failed.
    public var error: Swift.Error? {
        if case .failed(let error) = outcome { return error }
        return nil
    }
}
