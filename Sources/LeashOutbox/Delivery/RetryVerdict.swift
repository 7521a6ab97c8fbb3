import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one attempt's failure means for its item, by `OutboxOptions`' classification.
enum RetryVerdict {
    /// Send again after `delay` seconds; `countsAttempt` is false for a refused credential.
    case retry(after: TimeInterval, countsAttempt: Bool)
    /// Fail the item for good with this error.
    case fail(LeashError)

    /// Classifies `error`, the failure of `record`'s latest send (`record.attempts` counts it).
    static func of(
        _ error: LeashError, record: OutboxRecord, options: OutboxOptions, now: Date,
        random: () -> Double = { Double.random(in: 0...1) }
    ) -> RetryVerdict {
        let cause = innermost(error)
        if isUnauthorized(cause) {
            // The refresher had its go and the credential is still refused (logged out, the
            // refresh server away): wait as long as a retry would, never fail the write.
            return .retry(
                after: backoff(attempt: record.attempts, options: options, random: random), countsAttempt: false)
        }
        guard isRetryable(cause, options: options) else { return .fail(error) }
        if let limit = options.maximumAttempts, record.countedAttempts >= limit {
            return .fail(.retryLimitExceeded(attempts: record.attempts, lastError: error))
        }
        var delay = backoff(attempt: record.countedAttempts, options: options, random: random)
        if case .unacceptableStatusCode(let failure) = cause,
            let retryAfter = retryAfter(failure.headers["Retry-After"], now: now)
        {
            delay = min(max(0, retryAfter), max(0, options.maximumRetryDelay))
        }
        return .retry(after: delay, countsAttempt: true)
    }

    /// The error that decided the outcome: the last one of an exhausted retry.
    private static func innermost(_ error: LeashError) -> LeashError {
        if case .retryLimitExceeded(_, let last as LeashError) = error { return innermost(last) }
        return error
    }

    private static func isUnauthorized(_ error: LeashError) -> Bool {
        if case .authenticationFailed = error { return true }
        return error.statusCode == 401
    }

    private static func isRetryable(_ error: LeashError, options: OutboxOptions) -> Bool {
        switch error {
        case .unacceptableStatusCode(let failure): return options.retryableStatusCodes.contains(failure.statusCode)
        case .transport(let urlError): return options.retryableTransportErrors.contains(urlError.code)
        // No answer in time, an answer that was not HTTP, or `Manager.cancelAll()`: the
        // server may or may not have the write, and the key makes asking again safe.
        case .timeout, .invalidResponse, .cancelled: return true
        default: return false
        }
    }

    /// The doubling wait before send `attempt + 1`: about `initialRetryDelay` after the
    /// first send, at most `maximumRetryDelay`, varied by `jitter`.
    static func backoff(attempt: Int, options: OutboxOptions, random: () -> Double) -> TimeInterval {
        let initial = max(0, options.initialRetryDelay)
        let maximum = max(initial, options.maximumRetryDelay)
        let doubled = initial * pow(2, Double(min(max(attempt, 1) - 1, 60)))
        let jitter = min(max(options.jitter, 0), 1)
        let varied = min(doubled, maximum) * (1 + jitter * (2 * random() - 1))
        return min(max(0, varied), maximum)
    }

    /// `Retry-After` in seconds: a number of seconds, or an HTTP date (RFC 9110 §10.2.3).
    static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return TimeInterval(seconds) }
        // IMF-fixdate, and the two obsolete forms a recipient must still read. Formatters
        // are made here, not kept: a date in Retry-After is rare, and a DateFormatter is
        // not Sendable.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for pattern in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = pattern
            if let date = formatter.date(from: value) { return date.timeIntervalSince(now) }
        }
        return nil
    }
}
