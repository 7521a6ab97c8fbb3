import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The built-in routes, through URLSession.
final class BuiltInRoutesTests: LoopbackTestCase {
    private struct Sample: Decodable, Equatable {
        let id: Int
        let name: String
        let tags: [String]
    }

    func testJSON_answersTheSampleBody() throws {
        let server = try makeServer()
        let result = fetch(server.url(path: "/json"), on: makeSession())
        XCTAssertNil(result.error)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.response?.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(try decode(Sample.self, from: result.data), Sample(id: 1, name: "Leash", tags: ["a", "b"]))
        XCTAssertEqual(result.text, LoopbackServer.sampleJSON)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testJSON_onlyAnswersGet() throws {
        let server = try makeServer()
        var request = URLRequest(url: server.url(path: "/json"))
        request.httpMethod = "DELETE"
        XCTAssertEqual(fetch(request, on: makeSession()).status, 404)
    }

    func testEcho_returnsMethodPathQueryHeadersAndBody() throws {
        let server = try makeServer()
        let url = server.url(
            path: "/echo/a b",
            queryItems: [
                URLQueryItem(name: "z", value: "1"), URLQueryItem(name: "a", value: "x y&z"),
                URLQueryItem(name: "z", value: "2"), URLQueryItem(name: "flag", value: nil),
            ])
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("héllo".utf8)
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(result.status, 200)
        let echo = try decode(LoopbackServer.EchoedRequest.self, from: result.data)
        XCTAssertEqual(echo.method, "PUT")
        XCTAssertEqual(echo.path, "/echo/a%20b")
        XCTAssertEqual(echo.query, "z=1&a=x%20y%26z&z=2&flag")
        typealias Item = LoopbackServer.EchoedRequest.QueryItem
        XCTAssertEqual(
            echo.queryItems,
            [
                Item(name: "z", value: "1"), Item(name: "a", value: "x y&z"), Item(name: "z", value: "2"),
                Item(name: "flag", value: nil),
            ])
        XCTAssertEqual(echo.headers["authorization"], "Bearer token")
        XCTAssertEqual(echo.headers["content-type"], "text/plain")
        XCTAssertTrue(echo.headers.keys.allSatisfy { $0 == $0.lowercased() })
        XCTAssertEqual(echo.body, "héllo")
        XCTAssertEqual(echo.bodyBase64, Data("héllo".utf8).base64EncodedString())
        XCTAssertGreaterThanOrEqual(echo.connectionID, 1)
    }

    func testStatus_answersThatStatusWithAJSONErrorBody() throws {
        let server = try makeServer()
        let session = makeSession()
        for code in [201, 401, 404, 418, 500, 503] {
            let result = fetch(server.url(path: "/status/\(code)"), on: session)
            XCTAssertEqual(result.status, code)
            let body = try decode(ErrorBody.self, from: result.data)
            XCTAssertEqual(body.status, code)
            XCTAssertEqual(body.error, LoopbackResponse.reasonPhrase(for: code))
        }
        XCTAssertEqual(fetch(server.url(path: "/status/204"), on: session).data, Data())
        XCTAssertEqual(fetch(server.url(path: "/status/teapot"), on: session).status, 400)
        XCTAssertEqual(fetch(server.url(path: "/status/99"), on: session).status, 400)
    }

    func testDelay_answersAfterTheDelay() throws {
        let server = try makeServer()
        let started = Date()
        let result = fetch(server.url(path: "/delay/300"), on: makeSession())
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(try decode([String: Int].self, from: result.data), ["delayMilliseconds": 300])
    }

    func testCloseMidBody_failsTheTask() throws {
        let server = try makeServer()
        let result = fetch(server.url(path: "/close-mid-body"), on: makeSession())
        XCTAssertNotNil(result.error, "a truncated body must fail, got \(result.data?.count ?? -1) bytes")
        XCTAssertEqual(server.requestCount, 1)
    }

    func testGarbage_failsTheTask() throws {
        let server = try makeServer()
        let result = fetch(server.url(path: "/garbage"), on: makeSession())
        XCTAssertNotNil(result.error, "a non-HTTP answer must fail, got status \(result.status ?? -1)")
    }

    func testHang_cancellingTheTaskIsCountedAsAClientDisconnect() throws {
        let server = try makeServer()
        let session = makeSession()
        let finished = expectation(description: "cancelled task completes")
        let error = Locked<(any Error)?>(nil)
        let task = session.dataTask(with: server.url(path: "/hang")) { _, _, taskError in
            error.withLock { $0 = taskError }
            finished.fulfill()
        }
        task.resume()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        XCTAssertEqual(server.clientDisconnectCount, 0)
        task.cancel()
        wait(for: [finished], timeout: 10)
        XCTAssertEqual((error.value as? URLError)?.code, .cancelled)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 })
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.openConnectionCount == 0 })
    }

    func testDelay_cancellingTheTaskIsCountedAsAClientDisconnect() throws {
        let server = try makeServer()
        let session = makeSession()
        let finished = expectation(description: "cancelled task completes")
        let task = session.dataTask(with: server.url(path: "/delay/20000")) { _, _, _ in finished.fulfill() }
        task.resume()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        task.cancel()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 })
    }

    func testLarge_answersThatManyPatternBytes() throws {
        let server = try makeServer()
        let session = makeSession()
        let count = 10 * 1024 * 1024
        let result = fetch(server.url(path: "/large/\(count)"), on: session)
        XCTAssertEqual(result.status, 200)
        let data = try XCTUnwrap(result.data)
        XCTAssertEqual(data.count, count)
        XCTAssertEqual(data.prefix(4), Data([0, 1, 2, 3]))
        XCTAssertEqual(data.last, UInt8((count - 1) % 256))
        XCTAssertEqual(fetch(server.url(path: "/large/0"), on: session).data, Data())
        XCTAssertEqual(fetch(server.url(path: "/large/-1"), on: session).status, 400)
    }

    func testUnknownPath_answers404WithAJSONBody() throws {
        let server = try makeServer()
        let result = fetch(server.url(path: "/nowhere"), on: makeSession())
        XCTAssertEqual(result.status, 404)
        XCTAssertEqual(try decode(ErrorBody.self, from: result.data).error, "Not Found")
    }

    func testWithoutBuiltInRoutes_everythingIs404() throws {
        let server = try makeServer(includeBuiltInRoutes: false)
        XCTAssertEqual(fetch(server.url(path: "/json"), on: makeSession()).status, 404)
    }

    private struct ErrorBody: Decodable {
        let error: String
        let status: Int
    }
}
