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

/// One client for the API: a 401 refreshes the token once, however many requests got it,
/// and each of them retries with the new one.
func makeAPIClient(baseURL: String, tokens: TokenStore, transport: Transport, scheduler: SchedulerType) throws
    -> Client
{
    let tokenClient = Client(
        manager: try Manager.Builder().url(baseURL).transport(transport).scheduler(scheduler).build())
    let refresher = TokenRefresher(authenticator: tokens, scheduler: scheduler) {
        tokenClient.rx.single(RefreshToken()).do(onSuccess: { tokens.token = $0.token }).asCompletable()
    }
    return Client(
        manager: try Manager.Builder().url(baseURL).authenticator(tokens).refreshing(with: refresher)
            .transport(transport).scheduler(scheduler).timeout(15).build())
}
