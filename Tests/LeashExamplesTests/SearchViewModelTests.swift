import Foundation
import LeashExamples
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The search box's view model in virtual time: one tick is one millisecond, the stub
/// transport answers after scripted delays on the same `TestScheduler`, and nothing waits
/// for real time.
final class SearchViewModelTests: LeakCheckedTestCase {
    private var scheduler: TestScheduler!
    private var stub: StubTransport!

    private let leanne = User(id: 1, name: "Leanne Graham", username: "Bret", email: "Sincere@april.biz")
    private let ervin = User(id: 2, name: "Ervin Howell", username: "Antonette", email: "Shanna@melissa.tv")

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        stub = StubTransport(scheduler: scheduler)
    }

    override func tearDown() {
        scheduler = nil
        stub = nil
        super.tearDown()
    }

    private func makeViewModel(
        typing: [Recorded<Event<String>>], configure: (Manager.Builder) -> Manager.Builder = { $0 }
    )
        throws -> SearchViewModel
    {
        let manager = try configure(
            Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler)
        ).build()
        let query = scheduler.createHotObservable(typing).asObservable()
        return SearchViewModel(query: query, client: Client(manager: manager), scheduler: scheduler)
    }

    /// Answers `GET /users?q=term` with `users` after `delay` ms.
    private func answer(_ term: String, with users: [User], after delay: Int, status: Int = 200) {
        _ = stub.stub(
            matching: { request in request.url?.query == "q=\(term)" },
            [.json(encoding: users, status: status, delay: TimeInterval(delay) / 1000)])
    }

    private func searchedTerms() -> [String] {
        stub.requests.compactMap { $0.url?.query }
    }

    func testTypingIsDebouncedIntoOneSearch_andItsResultsFollowTheLatency() throws {
        answer("lea", with: [leanne], after: 120)
        let viewModel = try makeViewModel(typing: [.next(210, "l"), .next(250, "le"), .next(300, "lea")])

        let observer = scheduler.start(created: 0, subscribed: 200, disposed: 2_000) { viewModel.state }

        XCTAssertEqual(
            observer.events,
            [.next(200, .idle), .next(600, .searching("lea")), .next(720, .results([leanne]))])
        XCTAssertEqual(searchedTerms(), ["q=lea"], "one request, for the term the user stopped at")
    }

    func testANewTermCancelsTheSearchInFlight() throws {
        answer("le", with: [leanne, ervin], after: 500)
        answer("er", with: [ervin], after: 100)
        let viewModel = try makeViewModel(typing: [.next(210, "le"), .next(600, "er")])

        let observer = scheduler.start(created: 0, subscribed: 200, disposed: 2_000) { viewModel.state }

        // "le" goes out at 510 and would answer at 1010; "er" is debounced at 900 and
        // disposes it, so its results never show.
        XCTAssertEqual(
            observer.events,
            [
                .next(200, .idle), .next(510, .searching("le")), .next(900, .searching("er")),
                .next(1_000, .results([ervin])),
            ])
        XCTAssertEqual(searchedTerms(), ["q=le", "q=er"])
    }

    func testClearingTheBoxGoesBackToIdle_withoutARequest() throws {
        answer("le", with: [leanne], after: 50)
        let viewModel = try makeViewModel(typing: [.next(210, "le"), .next(700, "  ")])

        let observer = scheduler.start(created: 0, subscribed: 200, disposed: 2_000) { viewModel.state }

        XCTAssertEqual(
            observer.events,
            [.next(200, .idle), .next(510, .searching("le")), .next(560, .results([leanne])), .next(1_000, .idle)])
        XCTAssertEqual(searchedTerms(), ["q=le"])
    }

    func testAServerErrorBecomesAMessage_andTheBoxKeepsWorking() throws {
        _ = stub.stub(matching: { $0.url?.query == "q=le" }, [.status(503, delay: 0.03)])
        answer("er", with: [ervin], after: 30)
        let viewModel = try makeViewModel(typing: [.next(210, "le"), .next(700, "er")])

        let observer = scheduler.start(created: 0, subscribed: 200, disposed: 2_000) { viewModel.state }

        XCTAssertEqual(
            observer.events,
            [
                .next(200, .idle), .next(510, .searching("le")),
                .next(540, .failed("The service is having trouble. Try again later.")),
                .next(1_000, .searching("er")), .next(1_030, .results([ervin])),
            ])
    }

    func testBeingOfflineBecomesAMessage() throws {
        _ = stub.stub(matching: { _ in true }, [.error(.notConnectedToInternet, delay: 0.01)])
        let viewModel = try makeViewModel(typing: [.next(210, "le")])

        let observer = scheduler.start(created: 0, subscribed: 200, disposed: 2_000) { viewModel.state }

        XCTAssertEqual(
            observer.events,
            [
                .next(200, .idle), .next(510, .searching("le")),
                .next(520, .failed("You seem to be offline. Try again.")),
            ])
    }

    func testDisposingTheViewCancelsTheSearch() throws {
        answer("le", with: [leanne], after: 1_000)
        let viewModel = try makeViewModel(typing: [.next(210, "le")])

        let observer = scheduler.start(created: 0, subscribed: 200, disposed: 800) { viewModel.state }
        scheduler.advanceTo(3_000)

        XCTAssertEqual(observer.events, [.next(200, .idle), .next(510, .searching("le"))])
        XCTAssertEqual(searchedTerms(), ["q=le"], "the request went out, and its answer (due at 1510) never arrived")
    }
}

extension SearchViewModelTests {
    func testAnExpiredTokenIsRefreshedOnce_andTheSearchGoesThrough() throws {
        let tokens = TokenStore(token: "expired")
        _ = stub.stub(
            matching: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer expired" },
            [.status(401, delay: 0.02)])
        _ = stub.stub(
            matching: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer fresh" && $0.url?.path == "/users" },
            [.json(encoding: [leanne], delay: 0.02)])
        _ = stub.stub(.post, path: "/token", .json(#"{"token":"fresh"}"#, delay: 0.05))
        let tokenClient = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(stub).scheduler(scheduler).build())
        let refresher = TokenRefresher(authenticator: tokens, scheduler: scheduler) {
            tokenClient.rx.single(RefreshToken()).do(onSuccess: { tokens.token = $0.token }).asCompletable()
        }
        let viewModel = try makeViewModel(typing: [.next(210, "le")]) { $0.refreshing(with: refresher) }

        let observer = scheduler.start(created: 0, subscribed: 200, disposed: 2_000) { viewModel.state }

        // The search goes out at 510 with the expired token and gets 401 at 530; the refresh
        // answers at 580; the search goes out again and answers at 600.
        XCTAssertEqual(
            observer.events, [.next(200, .idle), .next(510, .searching("le")), .next(600, .results([leanne]))])
        XCTAssertEqual(
            stub.requests.map {
                "\($0.httpMethod ?? "") \($0.url?.path ?? "") \($0.value(forHTTPHeaderField: "Authorization") ?? "-")"
            },
            ["GET /users Bearer expired", "POST /token -", "GET /users Bearer fresh"])
    }
}
