/// Which header values a log line or a cURL description hides, shown as `***`.
///
/// The credentials every request and response may carry are hidden by default
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`); add your API's own:
///
/// ```swift
/// let redaction = HeaderRedaction(also: ["X-Api-Key"])
/// ```
///
/// Names are compared without regard to case, as HTTP does.
public struct HeaderRedaction: Sendable, Equatable {
    /// The headers hidden by default.
    public static let defaultNames: Set<String> = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    /// `defaultNames` hidden.
    public static let standard = HeaderRedaction()

    /// Nothing hidden: for a description you mean to run, never for a log that is kept.
    public static let none = HeaderRedaction(names: [])

    /// What a hidden value is replaced with.
    public static let mask = "***"

    /// The hidden names, lowercased.
    public let names: Set<String>

    /// Hides `defaultNames` and the headers in `additional`.
    public init(also additional: [String] = []) {
        self.init(names: Self.defaultNames.union(additional))
    }

    /// Hides exactly the headers in `names` (none of the defaults unless listed).
    public init(names: Set<String>) {
        self.names = Set(names.map { $0.lowercased() })
    }

    /// Whether the value of header `name` is hidden.
    public func hides(_ name: String) -> Bool {
        names.contains(name.lowercased())
    }

    /// `value`, or `mask` if header `name` is hidden.
    public func value(_ value: String, ofHeader name: String) -> String {
        hides(name) ? Self.mask : value
    }
}
