import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `LoopbackResponse` helpers and behaviours, seen on the wire and through URLSession.
final class ResponseBehaviourTests: LoopbackTestCase {
    func testHelpers_setStatusHeadersAndBody() throws {
        struct Payload: Encodable {
            let b: Int
            let a: String
        }
        let json = LoopbackResponse.json(Payload(b: 2, a: "x"), status: 201)
        XCTAssertEqual(json.status, 201)
        XCTAssertEqual(json.headers["content-type"], "application/json")
        XCTAssertEqual(String(decoding: json.body, as: UTF8.self), #"{"a":"x","b":2}"#)
        XCTAssertEqual(LoopbackResponse.json(Data("[1]".utf8)).body, Data("[1]".utf8))
        XCTAssertEqual(LoopbackResponse.text("hi").headers["Content-Type"], "text/plain; charset=utf-8")
        XCTAssertEqual(LoopbackResponse.status(404).status, 404)
        XCTAssertEqual(
            String(decoding: LoopbackResponse.status(404).body, as: UTF8.self), #"{"error":"Not Found","status":404}"#)
        XCTAssertEqual(LoopbackResponse.empty().status, 204)
        XCTAssertTrue(LoopbackResponse.empty(status: 202).body.isEmpty)
        let combined = LoopbackResponse.text("x").delayed(by: 0.5).chunked(size: 3).closingConnection().header("A", "b")
        XCTAssertEqual(combined.delay, 0.5)
        XCTAssertEqual(combined.delivery, .chunked(chunkSize: 3))
        XCTAssertTrue(combined.closeAfterResponse)
        XCTAssertEqual(combined.headers["a"], "b")
    }

    func testJSONOfAnUnencodableValue_isA500() throws {
        struct Unencodable: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "nope"))
            }
        }
        let response = LoopbackResponse.json(Unencodable())
        XCTAssertEqual(response.status, 500)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).contains("could not encode"))
    }

    func testChunked_sendsTheBodyInChunks() throws {
        let body = String(repeating: "0123456789", count: 10)
        let server = try makeServer(routes: [.get("/chunks") { _ in LoopbackResponse.text(body).chunked(size: 30) }])
        let client = try RawClient(port: server.port)
        try client.send("GET /chunks HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertTrue(response.wasChunked)
        XCTAssertNil(response.headers["Content-Length"])
        XCTAssertEqual(response.chunkSizes, [30, 30, 30, 10])
        XCTAssertEqual(response.bodyText, body)
        XCTAssertEqual(response.headers["Connection"], "keep-alive")

        let result = fetch(server.url(path: "/chunks"), on: makeSession())
        XCTAssertEqual(result.text, body)
    }

    func testCloseMidBody_announcesMoreThanItSends() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /close-mid-body HTTP/1.1\r\n\r\n")
        let bytes = try client.readUntilClose()
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        XCTAssertTrue(parts[0].hasPrefix("HTTP/1.1 200 OK"))
        XCTAssertTrue(parts[0].contains("Content-Length: 1024"))
        XCTAssertEqual(parts.dropFirst().joined(separator: "\r\n\r\n").utf8.count, 512)
    }

    func testGarbage_sendsNonHTTPBytesAndCloses() throws {
        let server = try makeServer(routes: [.get("/custom-garbage") { _ in .garbage(Data("SSH-2.0\r\n".utf8)) }])
        let client = try RawClient(port: server.port)
        try client.send("GET /garbage HTTP/1.1\r\n\r\n")
        XCTAssertEqual(Data(try client.readUntilClose()), LoopbackResponse.defaultGarbage)
        let custom = try RawClient(port: server.port)
        try custom.send("GET /custom-garbage HTTP/1.1\r\n\r\n")
        XCTAssertEqual(String(decoding: try custom.readUntilClose(), as: UTF8.self), "SSH-2.0\r\n")
    }

    func testCloseAfterResponse_closesTheConnection() throws {
        let server = try makeServer(routes: [.get("/once") { _ in LoopbackResponse.text("bye").closingConnection() }])
        let client = try RawClient(port: server.port)
        try client.send("GET /once HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.bodyText, "bye")
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertTrue(client.serverClosed())

        let session = makeSession()
        XCTAssertEqual(fetch(server.url(path: "/once"), on: session).text, "bye")
        XCTAssertEqual(fetch(server.url(path: "/once"), on: session).text, "bye")
        XCTAssertEqual(server.counters.connectionCount, 3, "URLSession reconnected after the close")
    }

    func testDelay_doesNotBlockOtherConnections() throws {
        let server = try makeServer()
        let slow = try RawClient(port: server.port)
        try slow.send("GET /delay/1500 HTTP/1.1\r\n\r\n")
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        let started = Date()
        let fast = try RawClient(port: server.port)
        try fast.send("GET /json HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try fast.readResponse().status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
        XCTAssertEqual(try slow.readResponse().status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.0)
    }

    func testDelay_keepsPipelinedRequestsInOrder() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /delay/200 HTTP/1.1\r\n\r\n")
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        try client.send("GET /status/202 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, #"{"delayMilliseconds":200}"#)
        XCTAssertEqual(try client.readResponse().status, 202)
        XCTAssertEqual(server.counters.clientDisconnectCount, 0)
    }

    func testHang_clientClosingIsCounted() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /hang HTTP/1.1\r\n\r\n")
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        XCTAssertFalse(server.waitUntil(timeout: 0.2) { $0.clientDisconnectCount > 0 }, "hang must not answer")
        client.close()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
    }

    func testResponseHeaders_areSentButFramingIsTheServers() throws {
        let server = try makeServer(routes: [
            .get("/headers") { _ in
                LoopbackResponse(
                    status: 299,
                    headers: [
                        "X-Custom": "1", "Content-Length": "999", "Connection": "close", "X-Bad": "a\r\nInjected: b",
                    ],
                    body: Data("abc".utf8))
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("GET /headers HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 299)
        XCTAssertEqual(response.headers["X-Custom"], "1")
        XCTAssertEqual(response.headers["Content-Length"], "3")
        XCTAssertEqual(response.headers["Connection"], "keep-alive")
        XCTAssertEqual(response.headers["X-Bad"], "aInjected: b")
        XCTAssertNil(response.headers["Injected"])
        XCTAssertEqual(response.bodyText, "abc")
    }

    func testNoContent_hasNoBodyAndKeepsTheConnectionUsable() throws {
        let server = try makeServer(routes: [
            .get("/nothing") { _ in LoopbackResponse(status: 204, body: Data("x".utf8)) }
        ])
        let client = try RawClient(port: server.port)
        try client.send("GET /nothing HTTP/1.1\r\n\r\nGET /status/201 HTTP/1.1\r\n\r\n")
        let noContent = try client.readResponse()
        XCTAssertEqual(noContent.status, 204)
        XCTAssertNil(noContent.headers["Content-Length"])
        XCTAssertEqual(try client.readResponse().status, 201)
    }
}
