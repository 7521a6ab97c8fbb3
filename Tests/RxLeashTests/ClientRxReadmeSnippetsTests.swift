// The snippets of Leash's README (reference/leash-readme.md) that use `.rx`, compiled
// against RxLeash and run against `LoopbackServer`. Snippet code is copied as written,
// comments included; what had to change is listed here.
//
// Adaptations (snippet → change → why):
//  1. All snippets → every top-level declaration of this file is `private`
//     → other test files of the target must not see (or clash with) `APIEndpoint`,
//       `User`, `UsersClient`; inside this file they read as written.
//  2. Setup, step 1 (`Manager.Builder().url("http://localhost:8080/api").build()`) →
//     `try`, and the loopback server's URL with the same `/api` path
//     → `build()` throws `LeashError.invalidURL` instead of crashing; the test's server
//       listens on an ephemeral port.
//  3. RxSwift (`APIEndpoint.readAllUsers`, `User`) → a one-case `APIEndpoint` (`GET
//     /users`) and a `User` declared below → the README uses them without declaring them.
//     `User` is deliberately not `Sendable`: `client.rx` does not require it.
//  4. RxSwift (`usersClient.rx.readAll()`) → `UsersClient` (a `Client` subclass) and
//     `extension Reactive where Base: UsersClient { func readAll() }`, as Leash's
//     example project declares them → the README shows only the call.
//  5. RxSwift (`….subscribe { event in … }`) → the returned disposable is kept in
//     `let subscription` and disposed at the end of the test → Rx's `subscribe`, like
//     RxSwift's, must not have its result dropped silently.
//  6. Snippets whose body is a comment (`// Handle the response event here.`) → lines
//     after the comment record the event → so that the test can check it.

import Foundation
import LeashTestSupport
import LoopbackServer
import RxLeash
import XCTest

private struct User: Decodable, Equatable {
    let id: Int
    let name: String
}

private enum APIEndpoint: Endpoint {
    case readAllUsers

    var path: String { "/users" }
    var method: HTTPMethod { .get }
}

private final class UsersClient: Client, @unchecked Sendable {}

extension Reactive where Base: UsersClient {
    fileprivate func readAll() -> Observable<[User]> {
        execute(APIEndpoint.readAllUsers, type: [User].self)
    }
}

final class ClientRxReadmeSnippetsTests: LoopbackIntegrationCase {
    private let usersJSON = #"[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"}]"#
    private let users = [User(id: 1, name: "Alice"), User(id: 2, name: "Bob")]

    override func setUpWithError() throws {
        try super.setUpWithError()
        server.route("GET", "/api/users", response: .json(Data(usersJSON.utf8)))
    }

    /// The README's `http://localhost:8080/api`, on the test's server.
    private var apiURL: String { server.baseURL.absoluteString + "/api" }

    func testRx_clientExecute_emitsUsersThenCompletes() throws {
        let manager = try Manager.Builder()
            .url(apiURL)  // Set the entire URL in one go.
            .build()  // Build the manager.
        let client = Client(
            manager: manager
        )
        let done = expectation(description: "completed")
        let events = SpecLocked<[String]>([])

        let subscription = client.rx.execute(
            APIEndpoint.readAllUsers,
            type: [User].self
        ).subscribe { event in
            // Handle the response event here.
            events.withLock { $0.append("\(event)") }
            if event.isStopEvent { done.fulfill() }
        }
        wait(for: [done], timeout: 10)
        subscription.dispose()

        XCTAssertEqual(events.value, ["next(\(users))", "completed"])
    }

    func testRx_usersClientReadAll_emitsUsersThenCompletes() throws {
        let usersClient = UsersClient(manager: try Manager.Builder().url(apiURL).build())
        let done = expectation(description: "completed")
        let events = SpecLocked<[String]>([])

        let subscription = usersClient.rx.readAll().subscribe { event in
            // Handle the response event here.
            events.withLock { $0.append("\(event)") }
            if event.isStopEvent { done.fulfill() }
        }
        wait(for: [done], timeout: 10)
        subscription.dispose()

        XCTAssertEqual(events.value, ["next(\(users))", "completed"])
    }
}
