// The README's "Testing" snippet, compiled and run: `client.rx` on a `StubTransport` in
// virtual time. The README shows this file from its first `import` to the end of the
// class, as an app's test target would hold it (`ReadmeCodeBlocksTests` checks it); below
// the class are the app's `User` and `GetUser`, which the README defines earlier.

import LeashTesting  // StubTransport: scripted answers instead of the network
import RxLeash
import RxTesting  // TestScheduler, and XCTAssertEqual for recorded events
import XCTest

final class GetUserTests: XCTestCase {
    func testGetUser_answersAfterTheStubsDelay() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let stub = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/v1/users/1", .json(#"{"id":1,"name":"Alice"}"#, delay: 2))
        let client = Client(
            manager: try Manager.Builder()
                .url("https://api.example.com/v1")
                .transport(stub)
                .scheduler(scheduler)  // Leash's timers (timeouts) run in virtual time too
                .build())

        let observer = scheduler.start { client.rx.execute(GetUser(id: 1)) }

        XCTAssertEqual(observer.events, [.next(202, User(id: 1, name: "Alice")), .completed(202)])
    }
}

private struct User: Codable, Equatable {
    let id: Int
    let name: String
}

private struct GetUser: TypedEndpoint {
    typealias Response = User
    let id: Int
    var path: String { "/users/\(id)" }
    var method: HTTPMethod { .get }
}
