/// Provides the credential that is added to every request.
///
/// ```swift
/// final class APIAuthenticator: Authenticator, @unchecked Sendable {
///     static var header: String { "Authorization" }
///     var accessToken: String?
///     var authentication: String? { accessToken.map { "Bearer \($0)" } }
/// }
/// ```
public protocol Authenticator: AnyObject {
    /// The header the credential goes in (usually `Authorization`).
    static var header: String { get }
    /// The header's value, or `nil` to send the request unauthenticated.
    var authentication: String? { get }
}
