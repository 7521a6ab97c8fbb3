import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Scripted routes: matching, precedence, runtime changes, sequences.
final class RoutingTests: LoopbackTestCase {
    func testPattern_exactAndWildcard() {
        typealias Route = LoopbackServer.Route
        let exact = Route.get("/a/b") { _ in .empty() }
        XCTAssertTrue(exact.matches(method: "GET", path: "/a/b"))
        XCTAssertTrue(exact.matches(method: "HEAD", path: "/a/b"), "GET routes answer HEAD")
        XCTAssertFalse(exact.matches(method: "POST", path: "/a/b"))
        XCTAssertFalse(exact.matches(method: "get", path: "/a/b"), "methods are case-sensitive")
        XCTAssertFalse(exact.matches(method: "GET", path: "/a/b/"))
        XCTAssertFalse(exact.matches(method: "GET", path: "/a"))

        let prefix = Route.any("/users/*") { _ in .empty() }
        XCTAssertTrue(prefix.matches(method: "DELETE", path: "/users/7"))
        XCTAssertTrue(prefix.matches(method: "GET", path: "/users/7/posts"))
        XCTAssertTrue(prefix.matches(method: "GET", path: "/users/"))
        XCTAssertFalse(prefix.matches(method: "GET", path: "/users"))

        let middle = Route.any("/users/*/posts") { _ in .empty() }
        XCTAssertTrue(middle.matches(method: "GET", path: "/users/7/posts"))
        XCTAssertFalse(middle.matches(method: "GET", path: "/users/7/comments"))
        XCTAssertFalse(middle.matches(method: "GET", path: "/users/posts"))

        XCTAssertTrue(Route.any("*") { _ in .empty() }.matches(method: "GET", path: "/anything/at/all"))
        XCTAssertTrue(Route.any("/a*c*e") { _ in .empty() }.matches(method: "GET", path: "/abcde"))
        XCTAssertFalse(Route.any("/a*c*e") { _ in .empty() }.matches(method: "GET", path: "/abcd"))
    }

    func testRoutesGivenAtInit_winOverBuiltInsAndLaterOnesWin() throws {
        let server = try makeServer(routes: [
            .get("/json") { _ in .text("first") },
            .any("/json") { _ in .text("second") },
            .get("/mine/*") { request in .text(request.pathComponents.joined(separator: ",")) },
        ])
        let session = makeSession()
        XCTAssertEqual(fetch(server.url(path: "/json"), on: session).text, "second")
        XCTAssertEqual(fetch(server.url(path: "/mine/a/b c"), on: session).text, "mine,a,b c")
        XCTAssertEqual(fetch(server.url(path: "/status/409"), on: session).status, 409, "built-ins still answer")
    }

    func testRoutesAddedWhileRunning_overrideAndCanBeRemoved() throws {
        let server = try makeServer()
        let session = makeSession()
        XCTAssertEqual(fetch(server.url(path: "/json"), on: session).text, LoopbackServer.sampleJSON)

        let override = server.route("GET", "/json", response: .text("overridden", status: 203))
        let result = fetch(server.url(path: "/json"), on: session)
        XCTAssertEqual(result.status, 203)
        XCTAssertEqual(result.text, "overridden")

        let posts = server.route("POST", "/json", response: .status(201))
        var post = URLRequest(url: server.url(path: "/json"))
        post.httpMethod = "POST"
        XCTAssertEqual(fetch(post, on: session).status, 201)
        XCTAssertEqual(fetch(server.url(path: "/json"), on: session).text, "overridden", "method-specific")

        XCTAssertTrue(server.removeRoute(override))
        XCTAssertFalse(server.removeRoute(override))
        XCTAssertEqual(fetch(server.url(path: "/json"), on: session).text, LoopbackServer.sampleJSON)
        XCTAssertTrue(server.removeRoute(posts))
        XCTAssertEqual(fetch(post, on: session).status, 404)
    }

    func testAddingTheSamePatternAgain_replacesTheRoute() throws {
        let server = try makeServer()
        let session = makeSession()
        let first = server.route("GET", "/swap", response: .text("one"))
        XCTAssertEqual(fetch(server.url(path: "/swap"), on: session).text, "one")
        server.route("GET", "/swap", response: .text("two"))
        XCTAssertEqual(fetch(server.url(path: "/swap"), on: session).text, "two")
        XCTAssertFalse(server.removeRoute(first), "the first route was replaced")
        server.removeAllRoutes()
        XCTAssertEqual(fetch(server.url(path: "/swap"), on: session).status, 404)
    }

    func testRouteSequence_answersInTurnThenRepeatsTheLast() throws {
        let server = try makeServer()
        let session = makeSession()
        server.routeSequence(method: "GET", path: "/me", [.status(401), .status(401), .json(["name": "Ada"])])
        let statuses = (0..<5).map { _ in fetch(server.url(path: "/me"), on: session).status }
        XCTAssertEqual(statuses, [401, 401, 200, 200, 200])
        XCTAssertEqual(fetch(server.url(path: "/me"), on: session).text, #"{"name":"Ada"}"#)

        server.routeSequence(method: "GET", path: "/me", [.status(503), .empty(status: 204)])
        XCTAssertEqual(fetch(server.url(path: "/me"), on: session).status, 503, "a new sequence starts over")
        XCTAssertEqual(fetch(server.url(path: "/me"), on: session).status, 204)

        server.routeSequence(path: "/none", [])
        XCTAssertEqual(fetch(server.url(path: "/none"), on: session).status, 404)
    }

    func testRouteSequence_isConsumedOncePerRequestUnderConcurrency() throws {
        let server = try makeServer(routes: [
            .sequence(path: "/numbered", (0..<32).map { .text("\($0)") } + [.text("done")])
        ])
        let session = makeSession()
        let bodies = Locked<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<40 {
            group.enter()
            session.dataTask(with: server.url(path: "/numbered")) { data, _, _ in
                let text = data.map { String(decoding: $0, as: UTF8.self) } ?? "error"
                bodies.withLock { $0.append(text) }
                group.leave()
            }.resume()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(Set(bodies.value.filter { $0 != "done" }), Set((0..<32).map { "\($0)" }))
        XCTAssertEqual(bodies.value.filter { $0 == "done" }.count, 8)
    }

    func testHandler_seesTheRequestAndCanCallTheServer() throws {
        let server = try makeServer()
        server.route("POST", "/count") { [weak server] request in
            .json(["requests": server?.requestCount ?? -1, "bytes": request.body.count])
        }
        var request = URLRequest(url: server.url(path: "/count"))
        request.httpMethod = "POST"
        request.httpBody = Data("12345".utf8)
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(try decode([String: Int].self, from: result.data), ["requests": 1, "bytes": 5])
    }
}
