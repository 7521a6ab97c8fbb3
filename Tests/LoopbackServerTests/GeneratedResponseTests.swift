import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `GET /bytes/{n}` and generated bodies: the pattern, ranges, dropped connections, chunked
/// and trickled bodies, other statuses.
final class GeneratedResponseTests: LoopbackTestCase {
    func testBytes_answersThePatternWithLengthTypeETagAndAcceptRanges() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /bytes/200000 HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Length"], "200000")
        XCTAssertEqual(response.headers["Content-Type"], "application/octet-stream")
        XCTAssertEqual(response.headers["Accept-Ranges"], "bytes")
        XCTAssertEqual(response.headers["ETag"], "\"pattern-200000\"")
        XCTAssertEqual(Data(response.body), LoopbackServer.patternBytes(in: 0..<200_000))

        let fetched = fetch(server.url(path: "/bytes/70000"), on: makeSession())
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched.data, LoopbackServer.patternBytes(in: 0..<70_000))
        XCTAssertEqual(fetch(server.url(path: "/bytes/0"), on: makeSession()).data, Data())
    }

    func testPattern_isTheSameByteByByteAndInRangesAndDoesNotRepeatAtPowersOfTwo() {
        let period = LoopbackServer.patternPeriod
        let range = (period - 100)..<(period + 100)
        XCTAssertEqual(LoopbackServer.patternBytes(in: range), Data(range.map { LoopbackServer.patternByte(at: $0) }))
        XCTAssertEqual(LoopbackServer.patternByte(at: 5), LoopbackServer.patternByte(at: 5 + 3 * period))
        var filled = [UInt8](repeating: 0, count: 3 * period + 17)
        filled.withUnsafeMutableBytes { LoopbackServer.fillPattern($0, from: 12_345) }
        XCTAssertEqual(Data(filled), LoopbackServer.patternBytes(in: 12_345..<(12_345 + filled.count)))
        for power in 8...31 {
            XCTAssertNotEqual(
                LoopbackServer.patternBytes(in: 0..<64),
                LoopbackServer.patternBytes(in: (1 << power)..<(1 << power) + 64),
                "a download resumed 2^\(power) bytes off must not match")
        }
        XCTAssertGreaterThan(Set(LoopbackServer.patternBytes(in: 0..<4096)).count, 200, "not a constant or a ramp")
    }

    func testRange_answers206WithTheRangeAndContentRange() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let cases: [(range: String, expected: Range<Int>)] = [
            ("bytes=100-199", 100..<200),
            ("bytes=990-", 990..<1000),
            ("bytes=-10", 990..<1000),
            ("bytes=900-5000", 900..<1000),
            ("bytes=0-0", 0..<1),
            ("bytes=-5000", 0..<1000),
        ]
        for (range, expected) in cases {
            try client.send("GET /bytes/1000 HTTP/1.1\r\nRange: \(range)\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 206, range)
            XCTAssertEqual(
                response.headers["Content-Range"], "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/1000", range
            )
            XCTAssertEqual(response.headers["Content-Length"], "\(expected.count)", range)
            XCTAssertEqual(response.headers["ETag"], "\"pattern-1000\"", range)
            XCTAssertEqual(Data(response.body), LoopbackServer.patternBytes(in: expected), range)
        }
        XCTAssertEqual(server.counters.connectionCount, 1)
    }

    func testRange_thatIsNotOneValidByteRange_getsTheWholeBody() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        for range in ["bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=x-", "bytes", "bytes=-"] {
            try client.send("GET /bytes/1000 HTTP/1.1\r\nRange: \(range)\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200, range)
            XCTAssertNil(response.headers["Content-Range"], range)
            XCTAssertEqual(response.body.count, 1000, range)
        }
    }

    func testRange_startingPastTheEnd_is416WithTheLength() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        for range in ["bytes=1000-", "bytes=5000-6000", "bytes=-0"] {
            try client.send("GET /bytes/1000 HTTP/1.1\r\nRange: \(range)\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 416, range)
            XCTAssertEqual(response.headers["Content-Range"], "bytes */1000", range)
            XCTAssertEqual(response.headers["Content-Length"], "0", range)
        }
        try client.send("GET /bytes/0 HTTP/1.1\r\nRange: bytes=0-\r\n\r\n")
        XCTAssertEqual(try client.readResponse().headers["Content-Range"], "bytes */0")
        try client.send("GET /status/202 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 202, "the connection is still usable")
    }

    func testIgnoreRange_answers200WithTheWholeBody() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /bytes/1000?ignoreRange=1 HTTP/1.1\r\nRange: bytes=500-\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertNil(response.headers["Accept-Ranges"])
        XCTAssertNil(response.headers["Content-Range"])
        XCTAssertEqual(Data(response.body), LoopbackServer.patternBytes(in: 0..<1000))
    }

    func testIfRange_appliesTheRangeOnlyForTheSameETag() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /bytes/1000 HTTP/1.1\r\nRange: bytes=10-\r\nIf-Range: \"pattern-1000\"\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 206)
        try client.send("GET /bytes/1000 HTTP/1.1\r\nRange: bytes=10-\r\nIf-Range: \"pattern-999\"\r\n\r\n")
        XCTAssertEqual(try client.readResponse().body.count, 1000)
        try client.send(
            "GET /bytes/1000 HTTP/1.1\r\nRange: bytes=10-\r\nIf-Range: Wed, 21 Oct 2015 07:28:00 GMT\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
    }

    func testDropAfter_closesAfterThatManyBodyBytesHavingAnnouncedThemAll() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /bytes/100000?dropAfter=30000 HTTP/1.1\r\n\r\n")
        let head = try client.readHead()
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Content-Length"], "100000")
        var body = Data()
        XCTAssertEqual(try client.readBody(count: 100_000) { body.append(contentsOf: $0) }, 30_000)
        XCTAssertEqual(body, LoopbackServer.patternBytes(in: 0..<30_000))
        XCTAssertTrue(client.serverClosed())

        let ranged = try RawClient(port: server.port)
        try ranged.send("GET /bytes/100000?dropAfter=1000 HTTP/1.1\r\nRange: bytes=50000-\r\n\r\n")
        let rangedHead = try ranged.readHead()
        XCTAssertEqual(rangedHead.status, 206)
        XCTAssertEqual(rangedHead.headers["Content-Length"], "50000")
        body = Data()
        XCTAssertEqual(try ranged.readBody(count: 50_000) { body.append(contentsOf: $0) }, 1000)
        XCTAssertEqual(body, LoopbackServer.patternBytes(in: 50_000..<51_000))

        let fetched = fetch(
            server.url(path: "/bytes/100000", queryItems: [.init(name: "dropAfter", value: "10")]), on: makeSession())
        XCTAssertNotNil(fetched.error, "a truncated body must fail")
        XCTAssertEqual(server.counters.clientDisconnectCount, 0, "the server dropped, not the client")
    }

    func testChunked_sendsTheBodyInChunksOfAtMost64KBOrTheTrickleSize() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /bytes/200000?chunked=1 HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertTrue(response.wasChunked)
        XCTAssertNil(response.headers["Content-Length"])
        XCTAssertEqual(response.chunkSizes, [65_536, 65_536, 65_536, 3392])
        XCTAssertEqual(Data(response.body), LoopbackServer.patternBytes(in: 0..<200_000))

        try client.send("GET /bytes/2500?chunked=1&chunk=1000 HTTP/1.1\r\nRange: bytes=100-\r\n\r\n")
        let ranged = try client.readResponse()
        XCTAssertEqual(ranged.status, 206)
        XCTAssertEqual(ranged.chunkSizes, [1000, 1000, 400])
        XCTAssertEqual(Data(ranged.body), LoopbackServer.patternBytes(in: 100..<2500))

        let fetched = fetch(
            server.url(path: "/bytes/100000", queryItems: [.init(name: "chunked", value: "1")]), on: makeSession())
        XCTAssertEqual(fetched.data, LoopbackServer.patternBytes(in: 0..<100_000))
    }

    func testTrickle_sendsEachPieceSeparatelyAfterAPause() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let started = Date()
        try client.send("GET /bytes/5000?chunk=1000&interval=100 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readHead().headers["Content-Length"], "5000")
        var arrivals: [(count: Int, time: TimeInterval)] = []
        var received = 0
        while received < 5000 {
            let bytes = try client.receiveAvailable()
            guard !bytes.isEmpty else { break }
            received += bytes.count
            arrivals.append((bytes.count, Date().timeIntervalSince(started)))
        }
        XCTAssertEqual(received, 5000)
        XCTAssertGreaterThanOrEqual(arrivals.count, 5, "each piece arrives on its own: \(arrivals)")
        XCTAssertTrue(arrivals.allSatisfy { $0.count <= 1000 }, "\(arrivals)")
        // Four pauses of 100 ms; asserted loosely (the lower bound only).
        XCTAssertGreaterThanOrEqual(arrivals.last?.time ?? 0, 0.35)

        let chunked = try RawClient(port: server.port)
        try chunked.send("GET /bytes/3000?chunk=1000&interval=20&chunked=1 HTTP/1.1\r\n\r\n")
        let response = try chunked.readResponse()
        XCTAssertEqual(response.chunkSizes, [1000, 1000, 1000])
        XCTAssertEqual(Data(response.body), LoopbackServer.patternBytes(in: 0..<3000))
    }

    func testStatusOption_answersThatStatusWithTheWholeBody() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        for status in [500, 401, 404] {
            try client.send("GET /bytes/1000?status=\(status) HTTP/1.1\r\nRange: bytes=10-\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, status)
            XCTAssertNil(response.headers["Content-Range"])
            XCTAssertEqual(Data(response.body), LoopbackServer.patternBytes(in: 0..<1000))
        }
    }

    func testMalformedOptions_answer400() throws {
        let server = try makeServer()
        let session = makeSession()
        for target in [
            "/bytes/abc", "/bytes/-1", "/bytes/10?chunked=yes", "/bytes/10?status=99", "/bytes/10?chunk=0",
            "/bytes/10?dropAfter=-1", "/bytes/10?interval=1&chunk=x", "/bytes/10?ignoreRange=2",
        ] {
            let url = try XCTUnwrap(URL(string: server.baseURL.absoluteString + target))
            XCTAssertEqual(fetch(url, on: session).status, 400, target)
        }
    }

    func testHead_announcesTheLengthWithoutABody_evenBeyond2GiB() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let length = (1 << 31) + 1
        try client.send("HEAD /bytes/\(length) HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse(forHead: true).headers["Content-Length"], "\(length)")
        try client.send("GET /bytes/\(length) HTTP/1.1\r\nRange: bytes=\(length - 9)-\r\n\r\n")
        let tail = try client.readResponse()
        XCTAssertEqual(tail.status, 206)
        XCTAssertEqual(tail.headers["Content-Range"], "bytes \(length - 9)-\(length - 1)/\(length)")
        XCTAssertEqual(Data(tail.body), LoopbackServer.patternBytes(in: (length - 9)..<length))
    }

    func testURLSession_rangeRequest_gets206() throws {
        let server = try makeServer()
        var request = URLRequest(url: server.url(path: "/bytes/300000"))
        request.setValue("bytes=100000-", forHTTPHeaderField: "Range")
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(result.status, 206)
        XCTAssertEqual(result.response?.value(forHTTPHeaderField: "Content-Range"), "bytes 100000-299999/300000")
        XCTAssertEqual(result.data, LoopbackServer.patternBytes(in: 100_000..<300_000))
    }

    func testScriptedRoute_firstDropsAfter1MBThenAnswersTheRange() throws {
        let length = 4 << 20
        let server = try makeServer()
        server.routeSequence(
            method: "GET", path: "/file",
            [.pattern(length: length).droppingConnection(afterBodyBytes: 1 << 20), .pattern(length: length)])
        let first = try RawClient(port: server.port)
        try first.send("GET /file HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try first.readHead().headers["Content-Length"], "\(length)")
        XCTAssertEqual(try first.readBody(count: length), 1 << 20)

        let second = try RawClient(port: server.port)
        try second.send("GET /file HTTP/1.1\r\nRange: bytes=1048576-\r\nIf-Range: \"pattern-\(length)\"\r\n\r\n")
        let head = try second.readHead()
        XCTAssertEqual(head.status, 206)
        XCTAssertEqual(head.headers["Content-Range"], "bytes 1048576-\(length - 1)/\(length)")
        var offset = 1 << 20
        var mismatches = 0
        try second.readBody(count: length - offset) { piece in
            if Data(piece) != LoopbackServer.patternBytes(in: offset..<offset + piece.count) { mismatches += 1 }
            offset += piece.count
        }
        XCTAssertEqual(offset, length)
        XCTAssertEqual(mismatches, 0)
        XCTAssertEqual(server.requestLog.map(\.range), [nil, "bytes=1048576-"])
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.responseBodyBytes == length })
    }

    func testGeneratedAndDataBodies_shareRangesDropsAndTrickles() throws {
        let server = try makeServer(routes: [
            .get("/letters") { _ in
                .generated(length: 26, contentType: "text/plain") { offset, buffer in
                    for index in 0..<buffer.count { buffer[index] = UInt8(ascii: "a") + UInt8((offset + index) % 26) }
                }
            },
            .get("/digits") { _ in LoopbackResponse.text("0123456789").acceptingRanges() },
            .get("/digits-cut") { _ in LoopbackResponse.text("0123456789").droppingConnection(afterBodyBytes: 3) },
            .get("/digits-slow") { _ in LoopbackResponse.text("0123456789").trickled(bytes: 4, every: 0.01) },
        ])
        let client = try RawClient(port: server.port)
        try client.send("GET /letters HTTP/1.1\r\nRange: bytes=23-\r\n\r\n")
        let letters = try client.readResponse()
        XCTAssertEqual(letters.bodyText, "xyz")
        XCTAssertEqual(letters.headers["Content-Type"], "text/plain")
        try client.send("GET /digits HTTP/1.1\r\nRange: bytes=2-4\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "234")
        try client.send("GET /digits-slow HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "0123456789")
        try client.send("GET /digits-cut HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readHead().headers["Content-Length"], "10")
        XCTAssertEqual(String(decoding: try client.readUntilClose(), as: UTF8.self), "012")
    }
}
