import RxLeash

// The API, as endpoints: what each request is, and what its answer decodes to.
struct User: Decodable, Equatable, Sendable {
    let id: Int
    let name: String
}

struct GetUsers: TypedEndpoint {
    typealias Response = [User]
    var path: String { "/users" }
    var method: HTTPMethod { .get }
}

struct NewToken: Decodable, Sendable {
    let token: String
}

struct RefreshToken: TypedEndpoint {
    typealias Response = NewToken
    var path: String { "/token" }
    var method: HTTPMethod { .post }
}

/// Where the token lives; every request reads it anew, so a retry after a refresh sends
/// the new one.
final class TokenStore: Authenticator, @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    static let header = "Authorization"
    private let lock = NSLock()
    private var stored: String?

    var token: String? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    var authentication: String? { token.map { "Bearer \($0)" } }
}
