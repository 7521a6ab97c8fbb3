import Foundation
import Leash

/// An access token, as `POST /token` returns it.
public struct AccessToken: Decodable, Sendable {
    /// The token to send as `Authorization: Bearer <token>`.
    public let token: String
}

/// `POST /token`: a new access token (the refresh).
public struct RefreshToken: TypedEndpoint {
    /// The response decodes to an `AccessToken`.
    public typealias Response = AccessToken
    /// `/token`.
    public var path: String { "/token" }
    /// POST.
    public var method: HTTPMethod { .post }

    /// The refresh request.
    public init() {}
}

/// `GET /me`: the signed-in user; 401 when the token is missing or stale.
public struct GetMe: TypedEndpoint {
    /// The response decodes to a `User`.
    public typealias Response = User
    /// `/me`.
    public var path: String { "/me" }
    /// GET.
    public var method: HTTPMethod { .get }

    /// The request for the signed-in user.
    public init() {}
}

/// Holds the access token; every request carries it as `Authorization: Bearer <token>`.
public final class TokenStore: Authenticator, @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: String?

    /// A store holding `token`.
    public init(token: String? = nil) {
        stored = token
    }

    /// The header the credential goes in.
    public static var header: String { "Authorization" }

    /// The current token.
    public var token: String? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// The header's value, or nil without a token.
    public var authentication: String? { token.map { "Bearer \($0)" } }
}
