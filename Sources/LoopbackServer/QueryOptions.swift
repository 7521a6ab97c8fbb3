import Foundation

/// A request's query options read as integers, remembering whether any was malformed, so
/// that a route reads them all and then answers 400 once.
struct QueryOptions {
    /// The request whose query is read.
    private let request: LoopbackRequest
    /// Whether an option was present but not a decimal integer in its range.
    private(set) var isMalformed = false

    /// Options of `request`'s query.
    init(_ request: LoopbackRequest) {
        self.request = request
    }

    /// The option `name` as an integer in `range`; nil when absent (or malformed, which is
    /// recorded).
    mutating func integer(_ name: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = request.queryValue(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            isMalformed = true
            return nil
        }
        return value
    }

    /// Whether the option `name` is `1` (`0` or absent: false; anything else is malformed).
    mutating func flag(_ name: String) -> Bool {
        integer(name, in: 0...1) == 1
    }

    /// Whether the option `name` is on: present with no value (`?hang`) or `1`; absent or
    /// `0`: false; anything else is malformed.
    mutating func switchedOn(_ name: String) -> Bool {
        guard let item = request.queryItems.first(where: { $0.name == name }) else { return false }
        guard let value = item.value else { return true }
        if value == "1" { return true }
        if value != "0" { isMalformed = true }
        return false
    }

    /// The option `name` as milliseconds (0…600,000), in seconds; 0 when absent.
    mutating func interval(_ name: String = "interval") -> TimeInterval {
        TimeInterval(integer(name, in: 0...600_000) ?? 0) / 1000
    }
}
