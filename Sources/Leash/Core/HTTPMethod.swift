/// An HTTP request method.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method as sent on the wire (`"GET"`).
    public let rawValue: String

    /// A method from its wire name; names are upper-cased.
    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    /// A method from a string literal (`"PURGE"`).
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// The wire name.
    public var description: String { rawValue }

    /// `CONNECT`
    public static let connect = HTTPMethod(rawValue: "CONNECT")
    /// `DELETE`
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `GET`
    public static let get = HTTPMethod(rawValue: "GET")
    /// `HEAD`
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `PATCH`
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `POST`
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `TRACE`
    public static let trace = HTTPMethod(rawValue: "TRACE")

    /// Whether parameters of this method go to the URL query rather than the body
    /// (`GET`, `HEAD`, `DELETE`, as URL encoding has always done).
    public var encodesParametersInURL: Bool {
        self == .get || self == .head || self == .delete
    }

    /// Whether a request with this method may carry a body. `GET` and `HEAD` may not.
    public var allowsBody: Bool {
        self != .get && self != .head
    }

    /// Whether repeating the request has the same effect as sending it once (RFC 9110):
    /// the methods retried by default.
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .options, .trace, .put, .delete: return true
        default: return false
        }
    }
}
