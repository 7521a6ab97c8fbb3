import Foundation

/// HTTP-dates (RFC 9110 §5.6.7), as `Retry-After`, `Expires` and `Date` carry them.
enum HTTPDate {
    /// The date of an HTTP-date in any of its three forms (`Sun, 06 Nov 1994 08:49:37 GMT`,
    /// the obsolete `Sunday, 06-Nov-94 08:49:37 GMT` and asctime's `Sun Nov  6 08:49:37 1994`),
    /// or `nil` if `value` is none of them.
    static func parse(_ value: String) -> Date? {
        // asctime pads single-digit days with a space ("Nov  6"): collapse runs of spaces.
        let normalized = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        guard !normalized.isEmpty else { return nil }
        // A formatter per call: they are not thread-safe, and dates are read once per
        // response that carries one.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: normalized) { return date }
        }
        return nil
    }
}
