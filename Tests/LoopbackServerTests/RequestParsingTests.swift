import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests on the wire: framing, keep-alive, pipelining, malformed input, vanishing clients.
final class RequestParsingTests: LoopbackTestCase {
    func testKeepAlive_sequentialRequestsShareOneConnection() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        for index in 0..<5 {
            try client.send("GET /echo?i=\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.headers["connection"], "keep-alive")
            let echo = try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: Data(response.body))
            XCTAssertEqual(echo.query, "i=\(index)")
            XCTAssertEqual(echo.connectionID, 1)
        }
        XCTAssertEqual(server.counters.connectionCount, 1)
        XCTAssertEqual(server.counters.requestCount, 5)
    }

    func testPipelining_answersEveryRequestInOrder() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send(
            "GET /status/201 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /status/202 HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 201)
        let echo = try client.readResponse()
        XCTAssertEqual(try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: Data(echo.body)).body, "hello")
        XCTAssertEqual(try client.readResponse().status, 202)
        XCTAssertEqual(server.counters.connectionCount, 1)
    }

    func testRequestSentByteByByte_isParsed() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        for byte in "POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc".utf8 {
            try client.send([byte])
        }
        let response = try client.readResponse()
        XCTAssertEqual(
            try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: Data(response.body)).body, "abc")
    }

    func testChunkedRequestBody_isDechunked() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n1;ext=1\r\n \r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n"
                + "GET /status/204 HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        let echo = try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: Data(response.body))
        XCTAssertEqual(echo.body, "hello 0123456789")
        XCTAssertEqual(try client.readResponse().status, 204)
    }

    func testTenMegabyteBodies_contentLengthAndChunked() throws {
        let body = Data((0..<256).map { UInt8($0) }).repeated(toCount: 10 * 1024 * 1024)
        let server = try makeServer(routes: [
            .post("/compare") { request in .json(["count": request.body.count, "equal": request.body == body ? 1 : 0]) }
        ])
        let expected = ["count": body.count, "equal": 1]

        var request = URLRequest(url: server.url(path: "/compare"))
        request.httpMethod = "POST"
        request.httpBody = body
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(try decode([String: Int].self, from: result.data), expected)

        let client = try RawClient(port: server.port)
        try client.send("POST /compare HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        var chunked = Data()
        var offset = 0
        while offset < body.count {
            let size = min(100_000, body.count - offset)
            chunked.append(Data("\(String(size, radix: 16))\r\n".utf8))
            chunked.append(body[offset..<offset + size])
            chunked.append(Data("\r\n".utf8))
            offset += size
        }
        chunked.append(Data("0\r\n\r\n".utf8))
        try client.send([UInt8](chunked))
        let response = try client.readResponse()
        XCTAssertEqual(try JSONDecoder().decode([String: Int].self, from: Data(response.body)), expected)
    }

    func testExpectContinue_isAnsweredBeforeTheBody() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 100)
        try client.send("body")
        let response = try client.readResponse()
        XCTAssertEqual(
            try JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: Data(response.body)).body, "body")
    }

    func testConnectionClose_isHonoured() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertEqual(response.bodyText, LoopbackServer.sampleJSON)
        XCTAssertTrue(client.serverClosed())
    }

    func testHTTP10_closesUnlessKeepAliveIsAsked() throws {
        let server = try makeServer()
        let keepAlive = try RawClient(port: server.port)
        for _ in 0..<2 {
            try keepAlive.send("GET /json HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            XCTAssertEqual(try keepAlive.readResponse().headers["Connection"], "keep-alive")
        }
        let plain = try RawClient(port: server.port)
        try plain.send("GET /json HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try plain.readResponse().headers["Connection"], "close")
        XCTAssertTrue(plain.serverClosed())
    }

    func testHeaders_keepOrderAndLookUpCaseInsensitively() throws {
        let captured = Locked<LoopbackRequest?>(nil)
        let server = try makeServer(routes: [
            .any("/capture") { request in
                captured.withLock { $0 = request }
                return .empty()
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("PATCH /capture?b=2&a HTTP/1.1\r\nX-One: 1\r\nx-two:  two \r\nX-ONE: uno\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 204)
        let request = try XCTUnwrap(captured.value)
        XCTAssertEqual(request.method, "PATCH")
        XCTAssertEqual(request.path, "/capture")
        XCTAssertEqual(request.query, "b=2&a")
        XCTAssertEqual(request.queryItems, [URLQueryItem(name: "b", value: "2"), URLQueryItem(name: "a", value: nil)])
        XCTAssertEqual(request.headers["x-one"], "1")
        XCTAssertEqual(request.headers["X-TWO"], "two")
        XCTAssertEqual(request.headers.values(for: "x-One"), ["1", "uno"])
        XCTAssertEqual(request.headers.fields.map(\.name), ["X-One", "x-two", "X-ONE"])
        XCTAssertEqual(request.httpVersion, "HTTP/1.1")
        XCTAssertEqual(request.connectionID, 1)
    }

    func testHead_sendsTheLengthButNoBody() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("HEAD /json HTTP/1.1\r\n\r\n")
        let head = try client.readResponse(forHead: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Content-Length"], "\(LoopbackServer.sampleJSON.utf8.count)")
        try client.send("GET /status/202 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 202, "no stray body bytes after the HEAD response")
    }

    func testMalformedRequests_answer400AndClose() throws {
        let server = try makeServer()
        let cases: [(String, Int)] = [
            ("NONSENSE\r\n\r\n", 400),
            ("GET /json\r\n\r\n", 400),
            ("GET /json HTTP/1.1 extra\r\n\r\n", 400),
            ("GET json HTTP/1.1\r\n\r\n", 400),
            ("G(T /json HTTP/1.1\r\n\r\n", 400),
            ("GET /json HTTX/1.1\r\n\r\n", 400),
            ("GET /json HTTP/2.0\r\n\r\n", 505),
            ("GET /json HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
            ("GET /json HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
            ("GET /json HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", 400),
            ("GET /json HTTP/1.1\r\nA: \u{1}\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
            ("POST /echo HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("POST /echo HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 400),
            ("\u{0}\u{1}\u{2}\r\n\r\n", 400),
            ("GET /" + String(repeating: "a", count: 70_000) + " HTTP/1.1\r\n\r\n", 431),
        ]
        for (request, status) in cases {
            let client = try RawClient(port: server.port)
            try client.send(request)
            let response = try client.readResponse()
            XCTAssertEqual(response.status, status, "for \(request.prefix(60).debugDescription)")
            XCTAssertEqual(response.headers["Connection"], "close")
            XCTAssertEqual(response.headers["Content-Type"], "application/json")
            XCTAssertTrue(client.serverClosed(), "for \(request.prefix(60).debugDescription)")
        }
        XCTAssertEqual(server.counters.badRequestCount, cases.count)
        XCTAssertEqual(server.counters.requestCount, 0)
        XCTAssertEqual(fetch(server.url(path: "/json"), on: makeSession()).status, 200, "still serving")
    }

    func testMutatedRequests_neverCrashAndTheServerKeepsServing() throws {
        let server = try makeServer()
        let valid = Array(
            ("POST /echo?a=1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
                + "PUT /echo HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody").utf8)
        var random = SeededGenerator(seed: 42)
        let alphabet = Array(" \r\n:;0123456789abcdefABCDEF/?%-\t\u{0}\u{7F}\u{FF}".utf8)
        for _ in 0..<150 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random) ?? 0
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: index)
                }
            }
            let client = try RawClient(port: server.port)
            try client.send(bytes)
            client.shutdownWrite()
            _ = client.serverClosed()
        }
        XCTAssertTrue(server.waitUntil(timeout: 30) { $0.openConnectionCount == 0 })
        XCTAssertEqual(server.counters.connectionCount, 150)
        XCTAssertEqual(fetch(server.url(path: "/json"), on: makeSession()).status, 200)
    }

    func testGarbageFromTheClient_answers400() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } + [10, 10])
        XCTAssertEqual(try client.readResponse().status, 400)
        XCTAssertTrue(client.serverClosed())
    }

    func testClientVanishingMidHead_isCountedAndHarmless() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /json HTTP/1.1\r\nHost: x\r\n")
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.connectionCount == 1 })
        client.close()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
        XCTAssertEqual(server.counters.requestCount, 0)
        XCTAssertEqual(fetch(server.url(path: "/json"), on: makeSession()).status, 200)
    }

    func testClientResettingMidBody_isCountedAndHarmless() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("POST /echo HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "x", count: 5000))
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.connectionCount == 1 })
        client.close(reset: true)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
        XCTAssertEqual(fetch(server.url(path: "/json"), on: makeSession()).status, 200)
    }

    func testIdleKeepAliveClose_isNotADisconnect() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /json HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        client.close()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.openConnectionCount == 0 })
        XCTAssertEqual(server.counters.clientDisconnectCount, 0)
    }

    func testClientVanishingWhileALargeResponseIsWritten_isCounted() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /large/\(64 * 1024 * 1024) HTTP/1.1\r\n\r\n")
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        client.close(reset: true)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
    }
}

extension Data {
    /// This data repeated (and cut) to `count` bytes.
    func repeated(toCount count: Int) -> Data {
        var result = self
        while result.count < count { result.append(result) }
        return result.prefix(count)
    }
}

/// A reproducible random number generator (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
