import Foundation

/// The directives of a `Cache-Control` header (RFC 9111 §5.2), parsed leniently: what a
/// `CacheInterceptor` with `CacheFreshness.http` reads from responses (and from requests).
///
/// - Directive names are case-insensitive (kept lower-cased); arguments are kept as sent,
///   without their quotes (`no-cache="Set-Cookie, X-Id"` is one directive, its comma
///   inside the quotes);
/// - spaces and tabs around names, `=` and arguments are ignored, and so are empty
///   elements (`, ,`);
/// - when a directive is repeated, the first one counts (as RFC 9111 §4.2.1 allows).
///
/// ```swift
/// let control = CacheControl("public, Max-Age=\"60\", no-cache")
/// control.maxAge  // 60
/// control.noCache  // true
/// ```
public struct CacheControl: Sendable, Equatable {
    /// One directive: `max-age=60` is `max-age` with argument `60`; `no-store` has none.
    public struct Directive: Sendable, Equatable {
        /// The name, lower-cased.
        public let name: String
        /// The argument, unquoted; `nil` when the directive has no `=`.
        public let argument: String?

        /// A directive (`name` is lower-cased).
        public init(name: String, argument: String? = nil) {
            self.name = name.lowercased()
            self.argument = argument
        }
    }

    /// The largest number of seconds a delta-seconds value counts for (RFC 9111 §1.2.2):
    /// larger ones are taken as this, rather than overflowing.
    public static let maximumDeltaSeconds = 2_147_483_648

    /// The directives in the order sent (repeats included).
    public let directives: [Directive]

    /// Parses a header's value; `nil` or an empty value has no directives.
    public init(_ header: String?) {
        directives = header.map(Self.parse) ?? []
    }

    /// Whether the header has the directive `name` (in any case).
    public func contains(_ name: String) -> Bool {
        let name = name.lowercased()
        return directives.contains { $0.name == name }
    }

    /// The argument of the first directive `name` (in any case), if it has one.
    public func argument(of name: String) -> String? {
        let name = name.lowercased()
        return directives.first { $0.name == name }?.argument
    }

    /// `max-age` in seconds: `nil` if absent, or if the first `max-age` is not a
    /// non-negative whole number (a malformed value is ignored, not read as 0); capped at
    /// `maximumDeltaSeconds`.
    public var maxAge: Int? { Self.deltaSeconds(argument(of: "max-age")) }

    /// `no-store`: the response must not be stored.
    public var noStore: Bool { contains("no-store") }

    /// `no-cache`: a stored response must be revalidated before each use (with or
    /// without field names: those are not told apart).
    public var noCache: Bool { contains("no-cache") }

    /// A delta-seconds value (`Age`, `max-age`): ASCII digits only, capped; else `nil`.
    static func deltaSeconds(_ text: String?) -> Int? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        // Too many digits for an Int is still a valid, very large number.
        return min(Int(text) ?? maximumDeltaSeconds, maximumDeltaSeconds)
    }

    /// Splits at commas outside quotes, then each element at its first `=`.
    private static func parse(_ header: String) -> [Directive] {
        var directives: [Directive] = []
        var element = Element()
        for character in header {
            if element.inQuotes {
                element.addQuoted(character)
                continue
            }
            switch character {
            case ",":
                if let directive = element.directive { directives.append(directive) }
                element = Element()
            case "=" where !element.hasArgument:
                element.hasArgument = true
            case "\"" where element.hasArgument && !element.wasQuoted && element.argument.allSatisfy(\.isWhitespace):
                element.argument = ""
                element.inQuotes = true
                element.wasQuoted = true
            default:
                // Whatever follows a closing quote before the next comma is not part of it.
                if !element.hasArgument {
                    element.name.append(character)
                } else if !element.wasQuoted {
                    element.argument.append(character)
                }
            }
        }
        if let directive = element.directive { directives.append(directive) }
        return directives
    }

    /// One comma-separated element as it is read.
    private struct Element {
        var name = ""
        var argument = ""
        var hasArgument = false
        var inQuotes = false
        var wasQuoted = false
        var escaping = false

        /// A character inside quotes: `\` escapes the next one, `"` closes them.
        mutating func addQuoted(_ character: Character) {
            if escaping {
                argument.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "\"" {
                inQuotes = false
            } else {
                argument.append(character)
            }
        }

        var directive: Directive? {
            let name = name.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return nil }
            guard hasArgument else { return Directive(name: name) }
            return Directive(name: name, argument: wasQuoted ? argument : argument.trimmingCharacters(in: .whitespaces))
        }
    }
}
