import Foundation
import LeashTesting  // StubTransport: scripted answers instead of the network
import RxLeash  // Leash, Rx and client.rx
import RxTesting  // TestScheduler, and XCTAssertEqual for recorded events
import XCTest

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

/// A screen's view model: the users as a `Driver` (never fails, replays the latest list to
/// a view that binds late), loaded at once and on each pull to refresh; failures as a
/// `Signal` of messages.
final class UsersViewModel: Sendable {
    let users: Driver<[User]>
    let errors: Signal<String>

    init(refresh: Signal<Void>, client: Client) {
        let failures = PublishRelay<String>()
        users = refresh.startWith(())
            .flatMapLatest { _ -> Driver<[User]> in
                client.rx.single(GetUsers())
                    .asDriver(onErrorRecover: { error in
                        failures.accept("Could not load the users: \(error)")
                        return .empty()
                    })
            }
        errors = failures.asSignal()
    }
}

final class LandingPageExampleTests: XCTestCase {
    func testAnExpiredToken_isRefreshedOnce_andTheRequestRetried_inVirtualTime() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let ada = User(id: 1, name: "Ada")
        // The server, scripted: the first /users gets a 401 (the token expired), the token
        // endpoint answers after 2 s, and the retried /users gets the list.
        let transport = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/users", .status(401), .json(#"[{"id": 1, "name": "Ada"}]"#))
            .stub(.post, path: "/token", .json(#"{"token": "fresh"}"#, delay: 2))
        let tokens = TokenStore()
        tokens.token = "expired"
        let client = try makeAPIClient(
            baseURL: "https://api.example.com", tokens: tokens, transport: transport, scheduler: scheduler)

        // Drivers and Signals made inside deliver on the test scheduler, not the main thread.
        try SharingScheduler.mock(scheduler: scheduler) {
            let viewModel = UsersViewModel(refresh: .never(), client: client)
            let errors = scheduler.createObserver(String.self)
            _ = viewModel.errors.emit(to: errors)

            let users = scheduler.start { viewModel.users }

            // Subscribed at 200: the 401, the refresh answering at 202, the retry, the list.
            XCTAssertEqual(users.events, [.next(203, [ada])])
            XCTAssertEqual(errors.events, [])
            XCTAssertEqual(tokens.token, "fresh")
            let sent = transport.requests.map { "\($0.httpMethod ?? "") \($0.url?.path ?? "")" }
            XCTAssertEqual(sent, ["GET /users", "POST /token", "GET /users"])
            XCTAssertEqual(
                try XCTUnwrap(transport.requests.last).value(forHTTPHeaderField: "Authorization"), "Bearer fresh")
        }
    }
}
