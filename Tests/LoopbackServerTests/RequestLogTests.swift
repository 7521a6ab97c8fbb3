import Foundation
import LoopbackServer
import XCTest

/// `requestLog` and the byte counters.
final class RequestLogTests: LoopbackTestCase {
    func testRequestLog_keepsHeadsInOrderWithoutBodies() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /bytes/10?x=1 HTTP/1.1\r\nRange: bytes=2-\r\nX-Test: a\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 206)
        try client.send("POST /upload HTTP/1.1\r\nContent-Length: 4\r\n\r\nbody")
        XCTAssertEqual(try client.readResponse().status, 200)
        try client.send("GET /nowhere HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 404)

        let log = server.requestLog
        XCTAssertEqual(log.map(\.method), ["GET", "POST", "GET"])
        XCTAssertEqual(log.map(\.target), ["/bytes/10?x=1", "/upload", "/nowhere"])
        XCTAssertEqual(log.map(\.path), ["/bytes/10", "/upload", "/nowhere"])
        XCTAssertEqual(log.map(\.range), ["bytes=2-", nil, nil])
        XCTAssertEqual(log.first?.headers["x-test"], "a")
        XCTAssertEqual(Set(log.map(\.connectionID)), [1])
    }

    func testRequestLog_isEmptiedByResetAndKeepsTheLatestRequests() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("GET /json HTTP/1.1\r\n\r\n")
        _ = try client.readResponse()
        server.resetCounters()
        XCTAssertEqual(server.requestLog, [])

        let count = LoopbackServer.requestLogCapacity + 20
        for index in 0..<count {
            try client.send("GET /status/204?i=\(index) HTTP/1.1\r\n\r\n")
        }
        for _ in 0..<count { _ = try client.readResponse() }
        let log = server.requestLog
        XCTAssertEqual(log.count, LoopbackServer.requestLogCapacity)
        XCTAssertEqual(log.first?.target, "/status/204?i=20")
        XCTAssertEqual(log.last?.target, "/status/204?i=\(count - 1)")
    }

    func testByteCounters_countBodiesNotFraming() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        _ = try client.readResponse()
        try client.send("GET /bytes/1000?chunked=1&chunk=100 HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().body.count, 1000)
        XCTAssertEqual(server.counters.requestBodyBytes, 5)
        // Both bodies counted: the echo's JSON is over 100 bytes (waiting only for 1,000
        // could end while the last chunks of /bytes were still being counted).
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.responseBodyBytes > 1100 })
        let echoLength = server.counters.responseBodyBytes - 1000
        XCTAssertGreaterThan(echoLength, 100, "the echo's JSON")
        server.resetCounters()
        XCTAssertEqual(server.counters.responseBodyBytes, 0)
        XCTAssertEqual(server.counters.requestBodyBytes, 0)
    }
}
