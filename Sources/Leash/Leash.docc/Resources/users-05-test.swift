import LeashTesting
import RxLeash
import RxTesting
import XCTest

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
