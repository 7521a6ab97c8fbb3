import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The streamed built-in routes, byte for byte: `/stream/chunks`, `/ndjson`,
/// `/ndjson/endless`, `/sse`, `/sse/flood`, `/lines/flood`.
final class StreamingRoutesTests: LoopbackTestCase {
    // MARK: - /stream/chunks

    func testStreamChunks_writesCountChunksOfThePattern() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /stream/chunks HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.headers["Content-Type"], "application/octet-stream")
        XCTAssertEqual(response.chunkSizes, Array(repeating: 16, count: 10))
        XCTAssertEqual(Data(response.body), LoopbackServer.patternBytes(in: 0..<160))

        try client.send("GET /stream/chunks?count=3&size=70000 HTTP/1.1\r\n\r\n")
        let large = try client.readResponse()
        XCTAssertEqual(large.chunkSizes, [70_000, 70_000, 70_000])
        XCTAssertEqual(Data(large.body), LoopbackServer.patternBytes(in: 0..<210_000), "the offset runs on")

        try client.send("GET /stream/chunks?count=0 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().body, [])
        XCTAssertEqual(server.requestLog.map(\.target).last, "/stream/chunks?count=0", "requests are logged")
    }

    func testStreamChunks_withAnInterval_pausesBetweenChunks() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let started = Date()
        try client.send("GET /stream/chunks?count=3&size=4&interval=100 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().chunkSizes, [4, 4, 4])
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
    }

    func testStreamChunks_dropAfter_cutsTheStream() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /stream/chunks?count=5&size=8&dropAfter=2 HTTP/1.1\r\n\r\n")
        _ = try client.readHead()
        let body = try client.readChunks()
        XCTAssertEqual(body.chunks.map(\.count), [8, 8])
        XCTAssertEqual(Data(body.chunks.joined()), LoopbackServer.patternBytes(in: 0..<16))
        XCTAssertFalse(body.complete)
    }

    func testStreamChunks_forever_writesUntilTheClientGoes() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /stream/chunks?count=0&forever=1&size=1000 HTTP/1.1\r\n\r\n")
        _ = try client.readHead()
        var received: [UInt8] = []
        for _ in 0..<200 { received += try XCTUnwrap(client.readChunk()) }
        XCTAssertEqual(Data(received), LoopbackServer.patternBytes(in: 0..<200_000))
        client.close()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
    }

    // MARK: - /ndjson

    func testNDJSON_writesNumberedLines() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /ndjson HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.headers["Content-Type"], "application/x-ndjson")
        XCTAssertEqual(response.bodyText, lines(0..<10))
        XCTAssertEqual(response.chunkSizes.count, 10, "a line per chunk")

        try client.send("GET /ndjson?count=3&crlf=1 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, lines(0..<3, terminator: "\r\n"))

        let fetched = fetch(
            server.url(path: "/ndjson", queryItems: [URLQueryItem(name: "count", value: "4")]), on: makeSession())
        XCTAssertEqual(fetched.text, lines(0..<4))
    }

    func testNDJSON_split_cutsEachLineAcrossTwoChunks() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /ndjson?count=2&split=1 HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.bodyText, lines(0..<2))
        let length = line(0).utf8.count
        XCTAssertEqual(response.chunkSizes, [length / 2, length - length / 2, length / 2, length - length / 2])
    }

    func testNDJSON_badLineAndPartialLast() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /ndjson?count=3&bad=1 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, line(0) + "{\"index\":1,\n" + line(2))

        try client.send("GET /ndjson?count=3&partialLast=1 HTTP/1.1\r\n\r\n")
        let partial = try client.readResponse()
        XCTAssertEqual(partial.bodyText, line(0) + line(1) + #"{"index":2,"name":"item-2"}"#)
    }

    func testNDJSON_dropAfter_cutsMidLine() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /ndjson?count=10&dropAfter=3 HTTP/1.1\r\n\r\n")
        _ = try client.readHead()
        let body = try client.readChunks()
        XCTAssertFalse(body.complete)
        client.close()
        let third = Array(line(3).utf8)
        XCTAssertEqual(
            String(decoding: body.chunks.joined(), as: UTF8.self),
            lines(0..<3) + String(decoding: third.prefix(third.count / 2), as: UTF8.self))
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.openConnectionCount == 0 })
        XCTAssertEqual(server.counters.clientDisconnectCount, 0)

        let fetched = fetch(
            server.url(path: "/ndjson", queryItems: [URLQueryItem(name: "dropAfter", value: "1")]), on: makeSession())
        XCTAssertNotNil(fetched.error, "URLSession sees the truncation")
    }

    func testNDJSONEndless_neverEndsALine() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /ndjson/endless HTTP/1.1\r\n\r\n")
        let head = try client.readHead()
        XCTAssertEqual(head.headers["Content-Type"], "application/x-ndjson")
        var chunks: [[UInt8]] = []
        for _ in 0..<4 { chunks.append(try XCTUnwrap(client.readChunk())) }
        XCTAssertEqual(chunks.map(\.count), [65_536, 65_536, 65_536, 65_536])
        let body = chunks.joined()
        XCTAssertEqual(Array(body.prefix(6)), Array(#"{"a":""#.utf8))
        XCTAssertTrue(body.dropFirst(6).allSatisfy { $0 == UInt8(ascii: "x") })
        client.close()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
    }

    // MARK: - /sse

    func testSSE_writesNumberedEvents() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /sse HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["Content-Type"], "text/event-stream")
        XCTAssertEqual(response.headers["Cache-Control"], "no-cache")
        XCTAssertEqual(
            response.bodyText, "id: 1\ndata: {\"n\":1}\n\nid: 2\ndata: {\"n\":2}\n\nid: 3\ndata: {\"n\":3}\n\n")
        XCTAssertEqual(response.chunkSizes.count, 3, "an event per chunk")
    }

    func testSSE_continuesAfterTheLastEventID() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /sse?count=2 HTTP/1.1\r\nLast-Event-ID: 41\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "id: 42\ndata: {\"n\":42}\n\nid: 43\ndata: {\"n\":43}\n\n")
        try client.send("GET /sse?count=1 HTTP/1.1\r\nLast-Event-ID: soon\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "id: 1\ndata: {\"n\":1}\n\n", "not a number: from 1")
        XCTAssertEqual(server.requestLog.last?.headers["Last-Event-ID"], "soon")
    }

    func testSSE_retryCommentsAndMultilineData() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /sse?count=2&retry=1500&comments=1&multiline=1 HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(
            response.bodyText,
            "retry: 1500\n\n"
                + ": keep-alive\nid: 1\ndata: line one of 1\ndata: line two of 1\n\n"
                + ": keep-alive\nid: 2\ndata: line one of 2\ndata: line two of 2\n\n")
    }

    func testSSE_endAt_answers204OnceTheLastEventIDReachesIt() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /sse?endAt=3 HTTP/1.1\r\nLast-Event-ID: 3\r\n\r\n")
        let ended = try client.readResponse()
        XCTAssertEqual(ended.status, 204)
        XCTAssertEqual(ended.body, [])
        try client.send("GET /sse?endAt=3&count=1 HTTP/1.1\r\nLast-Event-ID: 2\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "id: 3\ndata: {\"n\":3}\n\n")
    }

    func testSSE_dropAfter_cutsMidEvent() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /sse?count=5&dropAfter=1 HTTP/1.1\r\nLast-Event-ID: 7\r\n\r\n")
        _ = try client.readHead()
        let body = try client.readChunks()
        XCTAssertFalse(body.complete)
        let next = Array("id: 9\ndata: {\"n\":9}\n\n".utf8)
        XCTAssertEqual(
            String(decoding: body.chunks.joined(), as: UTF8.self),
            "id: 8\ndata: {\"n\":8}\n\n" + String(decoding: next.prefix(next.count / 2), as: UTF8.self))
    }

    func testSSE_contentTypeStatusAndInterval() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /sse?count=1&contentType=text/plain HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().headers["Content-Type"], "text/plain")
        try client.send("GET /sse?status=503 HTTP/1.1\r\n\r\n")
        let failed = try client.readResponse()
        XCTAssertEqual(failed.status, 503)
        XCTAssertEqual(failed.bodyText, #"{"error":"Service Unavailable","status":503}"#)
        let started = Date()
        try client.send("GET /sse?count=3&interval=100 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().chunkSizes.count, 3)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2)
    }

    // MARK: - Floods

    func testSSEFlood_writesEveryEventInFewLargeChunks() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /sse/flood?count=20000 HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.headers["Content-Type"], "text/event-stream")
        let expected = (1...20_000).map { "id: \($0)\ndata: {\"n\":\($0)}\n\n" }.joined()
        XCTAssertEqual(response.bodyText, expected)
        XCTAssertGreaterThan(response.chunkSizes.count, 1)
        XCTAssertTrue(
            response.chunkSizes.dropLast().allSatisfy { $0 > 60_000 && $0 <= 65_536 }, "\(response.chunkSizes)")

        try client.send("GET /sse/flood?count=0 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().body, [])
    }

    func testLinesFlood_writesValidLinesTotallingTheBytes() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        for total in [17, 150, 199, 200, 1000, 1_000_123] {
            try client.send("GET /lines/flood?bytes=\(total) HTTP/1.1\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.headers["Content-Type"], "application/x-ndjson")
            XCTAssertEqual(response.body.count, total)
            XCTAssertTrue(response.chunkSizes.allSatisfy { $0 <= 65_536 })
            let lines = response.bodyText.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.last, "", "the body ends with a newline")
            for (index, line) in lines.dropLast().enumerated() {
                let expectedLength = index == lines.count - 2 ? total - 100 * index - 1 : 99
                XCTAssertEqual(line.utf8.count, expectedLength, "line \(index) of \(total)")
                let decoded = try JSONDecoder().decode(FloodLine.self, from: Data(line.utf8))
                XCTAssertEqual(decoded.n, index)
                XCTAssertTrue(decoded.pad.allSatisfy { $0 == "x" })
            }
        }
        try client.send("GET /lines/flood?bytes=0 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().body, [])
    }

    // MARK: - Malformed options

    func testMalformedOptions_answer400() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let targets = [
            "/stream/chunks?count=abc", "/stream/chunks?size=0", "/stream/chunks?interval=-1",
            "/stream/chunks?forever=2", "/stream/chunks?dropAfter=x",
            "/ndjson?count=-1", "/ndjson?split=yes", "/ndjson?bad=x", "/ndjson?crlf=2", "/ndjson?interval=600001",
            "/ndjson?partialLast=true", "/ndjson?dropAfter=-2",
            "/sse?retry=soon", "/sse?count=x", "/sse?comments=2", "/sse?multiline=x", "/sse?endAt=-1",
            "/sse?status=99", "/sse?dropAfter=z",
            "/sse/flood?count=-5", "/lines/flood?bytes=16", "/lines/flood?bytes=abc",
        ]
        for target in targets {
            try client.send("GET \(target) HTTP/1.1\r\n\r\n")
            XCTAssertEqual(try client.readResponse().status, 400, target)
        }
        XCTAssertEqual(server.requestLog.count, targets.count, "every request is logged")
    }

    // MARK: - Helpers

    /// A line of `/lines/flood`.
    private struct FloodLine: Decodable {
        let n: Int
        let pad: String
    }

    /// Line `index` of `/ndjson`.
    private func line(_ index: Int, terminator: String = "\n") -> String {
        #"{"index":\#(index),"name":"item-\#(index)"}"# + terminator
    }

    /// Lines `range` of `/ndjson`, joined.
    private func lines(_ range: Range<Int>, terminator: String = "\n") -> String {
        range.map { line($0, terminator: terminator) }.joined()
    }
}
