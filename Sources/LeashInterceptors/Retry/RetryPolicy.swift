import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When and how long to wait before an execution is tried again: which failures, which
/// methods, how many attempts, and the delay between them.
///
/// The delay before retry `n` (after attempt `n` failed) is
/// `baseDelay × multiplier^(n-1)`, capped at `maximumDelay`, then jittered (full jitter by
/// default: a random delay between zero and that value). A `429` or `503` answer with a
/// valid `Retry-After` header waits what the server asked instead (capped at
/// `maximumDelay`, without jitter); a malformed header falls back to the backoff.
///
/// ```swift
/// let policy = RetryPolicy(maximumAttempts: 4, baseDelay: 0.5, multiplier: 2, maximumDelay: 10)
/// ```
///
/// Out-of-range settings never trap: fewer than one attempt is one attempt, negative or
/// NaN delays are zero, a multiplier below one is one.
public struct RetryPolicy: Sendable {
    /// How a computed backoff is randomised, so that clients failing together do not retry
    /// together.
    public enum Jitter: Sendable, Equatable {
        /// The backoff itself, exactly.
        case none
        /// A random delay in `0...backoff` (the default): spreads retries the most.
        case full
        /// `backoff/2` plus a random delay in `0...backoff/2`: never retries at once.
        case equal
    }

    /// Where jitter's randomness comes from: values in `0...1` (others are clamped).
    /// Inject a constant one to make delays exact in tests.
    public struct RandomSource: Sendable {
        private let next: @Sendable () -> Double

        /// A source that calls `next` for each delay.
        public init(_ next: @escaping @Sendable () -> Double) {
            self.next = next
        }

        /// The system's random number generator.
        public static let system = RandomSource { Double.random(in: 0...1) }

        /// Always `value` (clamped to `0...1`): `1` gives the full backoff under any jitter.
        public static func constant(_ value: Double) -> RandomSource {
            RandomSource { value }
        }

        /// The next value, clamped to `0...1` (NaN counts as `0`).
        func unitValue() -> Double {
            let value = next()
            if value.isNaN { return 0 }
            return min(max(value, 0), 1)
        }
    }

    /// The methods retried by default: the idempotent ones (RFC 9110), which the server
    /// may safely receive twice.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .options, .put, .delete, .trace]

    /// The statuses retried by default: timeout, too many requests, and the transient
    /// server errors.
    public static let transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The transport failures retried by default: those a later attempt may not meet
    /// (never a cancellation, a bad URL or a TLS trust failure).
    public static let transientURLErrorCodes: Set<URLError.Code> = [
        .timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
        .notConnectedToInternet, .resourceUnavailable,
    ]

    /// The most attempts, the first included (default 3: the first and two retries).
    /// The manager's `maximumRetryCount` also bounds them: see `RetryInterceptor`.
    public var maximumAttempts: Int
    /// The delay before the first retry, in seconds (default 0.5).
    public var baseDelay: TimeInterval
    /// How much each delay grows over the previous one (default 2).
    public var multiplier: Double
    /// The longest delay, backoff or `Retry-After`, in seconds (default 30).
    public var maximumDelay: TimeInterval
    /// How the backoff is randomised (default `.full`).
    public var jitter: Jitter
    /// Where jitter's randomness comes from (default `.system`).
    public var random: RandomSource
    /// The methods whose executions are retried (default `idempotentMethods`: never a POST
    /// or PATCH unless you add it).
    public var retryableMethods: Set<HTTPMethod>
    /// The statuses that are retried (default `transientStatusCodes`). Only failures are:
    /// a status the manager or endpoint accepts is a value, never retried.
    public var retryableStatusCodes: Set<Int>
    /// The statuses whose `Retry-After` header is honoured (default 429 and 503).
    public var retryAfterStatusCodes: Set<Int>
    /// The transport failures that are retried (default `transientURLErrorCodes`).
    public var retryableURLErrorCodes: Set<URLError.Code>

    /// Creates a policy; every parameter has the default described on its property.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: TimeInterval = 0.5,
        multiplier: Double = 2,
        maximumDelay: TimeInterval = 30,
        jitter: Jitter = .full,
        random: RandomSource = .system,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatusCodes: Set<Int> = RetryPolicy.transientStatusCodes,
        retryAfterStatusCodes: Set<Int> = [429, 503],
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.transientURLErrorCodes
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.random = random
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryAfterStatusCodes = retryAfterStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
    }

    /// The default policy: 3 attempts, 0.5 s doubling up to 30 s, full jitter, idempotent
    /// methods, transient statuses and transport failures.
    public static let `default` = RetryPolicy()

    /// Delays are capped at a year, so that converting them to a timer's milliseconds
    /// never overflows, whatever `maximumDelay` says.
    static let longestDelay: TimeInterval = 365 * 24 * 3600

    /// Whether `error` is a failure worth another attempt: a retryable status, or a
    /// transient transport failure. Cancellations, timeouts of the whole execution,
    /// decoding errors and the app's own errors are not.
    public func isRetryable(_ error: Swift.Error) -> Bool {
        switch error as? LeashError {
        case .unacceptableStatusCode(let failure)?: return retryableStatusCodes.contains(failure.statusCode)
        case .transport(let urlError)?: return retryableURLErrorCodes.contains(urlError.code)
        default: return false
        }
    }

    /// The backoff before the retry that follows attempt `attempt` (from 1), without
    /// jitter: `baseDelay × multiplier^(attempt-1)`, capped at `maximumDelay`.
    public func backoff(afterAttempt attempt: Int) -> TimeInterval {
        let base = Self.sanitized(baseDelay)
        let growth = multiplier.isNaN ? 1 : max(multiplier, 1)
        let exponent = Double(max(attempt, 1) - 1)
        // An overflowing power is infinite, which the cap brings back to `maximumDelay`.
        let raw = base == 0 ? 0 : base * pow(growth, exponent)
        return min(raw, cap)
    }

    /// The jittered backoff before the retry that follows attempt `attempt`; draws from
    /// `random` once (unless the jitter is `.none`).
    public func jitteredBackoff(afterAttempt attempt: Int) -> TimeInterval {
        let backoff = backoff(afterAttempt: attempt)
        switch jitter {
        case .none: return backoff
        case .full: return backoff * random.unitValue()
        case .equal: return backoff / 2 + backoff / 2 * random.unitValue()
        }
    }

    /// How long to wait before retrying an execution of `method` whose attempt `attempt`
    /// failed with `error`, or `nil` if it is not retried (not retryable, the method is
    /// not retried, or `maximumAttempts` is reached).
    ///
    /// - Parameters:
    ///   - error: The failure of the attempt.
    ///   - method: The execution's method.
    ///   - attempt: The attempt that failed, from 1.
    ///   - now: The time an HTTP-date `Retry-After` is measured from (the scheduler's clock).
    /// - Returns: The delay in seconds, `0...maximumDelay`.
    public func retryDelay(after error: Swift.Error, method: HTTPMethod, attempt: Int, now: Date) -> TimeInterval? {
        guard attempt < maximumAttempts, retryableMethods.contains(method), isRetryable(error) else { return nil }
        if case .unacceptableStatusCode(let failure)? = error as? LeashError,
            retryAfterStatusCodes.contains(failure.statusCode),
            let header = RetryAfter.headerValue(in: failure),
            let requested = RetryAfter.seconds(from: header, now: now)
        {
            return min(requested, cap)
        }
        return jitteredBackoff(afterAttempt: attempt)
    }

    /// `maximumDelay`, made a usable bound.
    private var cap: TimeInterval {
        min(Self.sanitized(maximumDelay), Self.longestDelay)
    }

    /// `value` if it is a usable number of seconds, else `0`.
    private static func sanitized(_ value: TimeInterval) -> TimeInterval {
        value.isNaN ? 0 : max(value, 0)
    }
}
