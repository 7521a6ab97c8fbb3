import Foundation

/// Parameters sent as an HTML form body: `application/x-www-form-urlencoded`.
///
/// ```swift
/// var parameters: Any? {
///     FormURLEncoded(["user": ["name": "Ada"], "tags": ["a", "b"], "remember": true])
/// }
/// // user%5Bname%5D=Ada&remember=true&tags%5B%5D=a&tags%5B%5D=b
/// ```
///
/// The dictionary is flattened as a query is: keys sorted, nested dictionaries as
/// `parent[child]`, arrays and booleans as the manager's `urlEncoding` says, `nil` and
/// `NSNull` values left out, any other value by its `description`. Names and values are
/// percent-encoded as queries are (RFC 3986: everything but letters, digits, `-._~/?`, so
/// `&`, `=`, `+` and spaces become `%26`, `%3D`, `%2B` and `%20`), which every form parser
/// decodes; spaces are not written as `+`. The body goes with
/// `Content-Type: application/x-www-form-urlencoded; charset=utf-8` unless a header sets
/// another. A value that is not `CustomStringConvertible` ends the execution with
/// `LeashError.encoding` naming its key path; a form on GET or HEAD, too.
///
/// Not `Sendable`: like `[String: Any]` it may hold values of any type. Make it where
/// `parameters` is read, as above.
public struct FormURLEncoded {
    /// The fields of the form.
    public let parameters: [String: Any]

    /// A form of these fields.
    public init(_ parameters: [String: Any]) {
        self.parameters = parameters
    }

    /// The `Content-Type` of the body.
    static let contentType = "application/x-www-form-urlencoded; charset=utf-8"

    /// The body: `name=value&…`.
    func body(options: URLEncodingOptions) throws -> Data {
        let pairs = try QueryEncoding.pairs(
            of: parameters, options: options, destination: "FormURLEncoded parameters go to a form body")
        return Data(QueryEncoding.encoded(pairs).utf8)
    }
}
