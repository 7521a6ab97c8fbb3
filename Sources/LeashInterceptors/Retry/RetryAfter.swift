import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads the `Retry-After` header (RFC 9110 §10.2.3): delta-seconds (`120`) or an
/// HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`, and the two obsolete date forms).
enum RetryAfter {
    /// The header of a status failure, whatever the case of its name.
    static func headerValue(in failure: StatusCodeFailure) -> String? {
        failure.response?.value(forHTTPHeaderField: "Retry-After") ?? failure.headers["Retry-After"]
    }

    /// The seconds from `now` that `header` asks to wait (`0` for a date in the past), or
    /// `nil` if it is neither form.
    static func seconds(from header: String, now: Date) -> TimeInterval? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Parsed as a Double so that an absurdly long number is large, not malformed;
            // the policy caps it.
            return Double(value)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(date.timeIntervalSince(now), 0)
    }
}
