import Foundation

/// Describes one operation of an API: where, how, and with what parameters.
///
/// ```swift
/// enum APIEndpoint: Endpoint {
///     case readAllUsers
///     case createUser(User)
///
///     var path: String {
///         switch self {
///         case .readAllUsers, .createUser: return "/users"
///         }
///     }
///
///     var method: HTTPMethod {
///         switch self {
///         case .readAllUsers: return .get
///         case .createUser: return .post
///         }
///     }
///
///     var parameters: Any? {
///         switch self {
///         case .readAllUsers: return nil
///         case .createUser(let user): return user
///         }
///     }
/// }
/// ```
///
/// `parameters` may be:
/// - a `QueryEncodable` (always sent in the URL query), or a
///   `[String: CustomStringConvertible]` (in the query for `GET`, `HEAD` and `DELETE`), with
///   sorted keys, nested dictionaries as `key[child]`, and arrays and booleans as the
///   manager's `urlEncoding` says (`key[]`, `true` by default);
/// - `Data`: the body as it is, with `Content-Type: application/octet-stream` unless a
///   header sets another;
/// - an `UploadFile`: a file streamed as the body;
/// - a `MultipartFormData`: a `multipart/form-data` body of fields and files;
/// - a `FormURLEncoded`: an `application/x-www-form-urlencoded` body;
/// - an `Encodable` or a `[String: Any]`: a JSON body, with `Content-Type: application/json`
///   unless a header sets another.
///
/// Any other value, a body on `GET` or `HEAD`, or a value that fails to encode ends the
/// execution with `LeashError.encoding`, which says which and keeps the encoder's error.
public protocol Endpoint {
    /// The path, relative to the manager's base URL (`"/users/1"` and `"users/1"` join the
    /// same way). It may carry a query of its own (`"/search?sort=name"`). Spaces and other
    /// characters a URL cannot hold are percent-encoded; an existing `%XX` escape is kept.
    var path: String { get }
    /// The HTTP method.
    var method: HTTPMethod { get }
    /// The parameters (see above for the kinds and where each is sent); `nil` for none.
    var parameters: Any? { get }
    /// Headers for this endpoint only; they override the manager's default headers.
    var headers: [String: String]? { get }
    /// The status codes this endpoint accepts, overriding the manager's; `nil` to keep them.
    var acceptableStatusCodes: Set<Int>? { get }
    /// The time this endpoint may take, overriding the manager's; `nil` to keep it. For an
    /// upload or a download, the time the whole transfer may take (the manager's timeout
    /// bounds only each stall of a transfer).
    var timeout: TimeInterval? { get }
    /// The longest this endpoint's execution may go without a byte sent or received,
    /// overriding the manager's `idleTimeout`; `nil` to keep it.
    var idleTimeout: TimeInterval? { get }
    /// The encoder for this endpoint's `Encodable` parameters; `nil` for the manager's.
    var jsonEncoder: JSONEncoder? { get }
    /// The decoder for this endpoint's responses; `nil` for the manager's.
    var jsonDecoder: JSONDecoder? { get }
    /// What this endpoint's executions do when redirected, overriding the manager's; `nil`
    /// to keep it.
    var redirectPolicy: RedirectPolicy? { get }
}

extension Endpoint {
    /// No parameters.
    public var parameters: Any? { nil }
    /// No extra headers.
    public var headers: [String: String]? { nil }
    /// The manager's acceptable status codes.
    public var acceptableStatusCodes: Set<Int>? { nil }
    /// The manager's timeout.
    public var timeout: TimeInterval? { nil }
    /// The manager's idle timeout.
    public var idleTimeout: TimeInterval? { nil }
    /// The manager's encoder.
    public var jsonEncoder: JSONEncoder? { nil }
    /// The manager's decoder.
    public var jsonDecoder: JSONDecoder? { nil }
    /// The manager's redirect policy.
    public var redirectPolicy: RedirectPolicy? { nil }
}

/// An endpoint that knows the type its response decodes to, so that calls infer it:
///
/// ```swift
/// struct GetUser: TypedEndpoint {
///     typealias Response = User
///     let id: Int
///     var path: String { "/users/\(id)" }
///     var method: HTTPMethod { .get }
/// }
/// let user = try await client.execute(GetUser(id: 1))
/// ```
public protocol TypedEndpoint: Endpoint {
    /// The type the response body decodes to.
    associatedtype Response: Decodable
}
