import Foundation
import LeashDigest
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Streaming routes: the body handed over as it arrives, `Expect: 100-continue`, bodies
/// left unread, broken bodies and vanishing clients.
final class StreamingRequestBodyTests: LoopbackTestCase {
    func testStreamingRoute_getsTheBodyBeforeItHasAllArrived() throws {
        let firstBytesRead = expectation(description: "the handler read the first 1,000 bytes")
        let runSizes = Locked<[Int]>([])
        let server = try makeServer(routes: [
            .streaming("PUT", "/stream") { request, body in
                var total = 0
                var signalled = false
                do {
                    try body.readToEnd { run in
                        total += run.count
                        runSizes.withLock { $0.append(run.count) }
                        if total >= 1000 && !signalled {
                            signalled = true
                            firstBytesRead.fulfill()
                        }
                    }
                } catch {
                    return .status(400)
                }
                return .json(["bytes": total, "bodyCount": request.body.count, "read": body.bytesRead])
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("PUT /stream HTTP/1.1\r\nContent-Length: 3000\r\n\r\n" + String(repeating: "a", count: 1000))
        wait(for: [firstBytesRead], timeout: 10)
        try client.send(String(repeating: "b", count: 2000))
        let response = try client.readResponse()
        XCTAssertEqual(
            try JSONDecoder().decode([String: Int].self, from: Data(response.body)),
            ["bytes": 3000, "bodyCount": 0, "read": 3000])
        XCTAssertEqual(response.headers["Connection"], "keep-alive")
        XCTAssertEqual(runSizes.value.reduce(0, +), 3000)
        XCTAssertGreaterThanOrEqual(runSizes.value.count, 2)
        XCTAssertEqual(server.counters.requestBodyBytes, 3000)
    }

    func testChunkedBody_isDechunkedForAStreamingRoute() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("POST /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n")
        try client.sendChunk(Data("hello".utf8))
        try client.sendChunk(Data(" world".utf8))
        try client.send("0\r\nX-Trailer: 1\r\n\r\nGET /status/202 HTTP/1.1\r\n\r\n")
        let upload = try client.readJSON(LoopbackServer.ReceivedUpload.self)
        XCTAssertEqual(
            upload,
            LoopbackServer.ReceivedUpload(
                bytes: 11, sha256: SHA256.hexDigest("hello world".utf8), contentType: "text/plain", chunked: true))
        XCTAssertEqual(try client.readResponse().status, 202, "the pipelined request after the body is served")
    }

    func testExpectContinue_isAnsweredAtOnceWhenTheRouteReadsTheBody() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let started = Date()
        try client.send("PUT /upload HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 100)
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5, "libcurl would wait 1 s for it")
        try client.send("12345")
        let upload = try client.readJSON(LoopbackServer.ReceivedUpload.self)
        XCTAssertEqual(upload.bytes, 5)
        XCTAssertEqual(server.counters.continueCount, 1)
    }

    func testExpectContinue_isNotSentWhenTheBodyIsAlreadyThere() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("PUT /upload HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n12345")
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertEqual(server.counters.continueCount, 0)
    }

    func testHandlerNotReadingTheBody_answersAndClosesWithoutContinue() throws {
        let server = try makeServer(routes: [.streaming("POST", "/refuse") { _, _ in .status(401) }])
        let client = try RawClient(port: server.port)
        try client.send("POST /refuse HTTP/1.1\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 401, "a final answer, not 100 Continue")
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertTrue(client.serverClosed())
        XCTAssertEqual(server.counters.continueCount, 0)
    }

    func testHandlerReadingPartOfTheBody_closesTheConnectionAfterTheResponse() throws {
        let server = try makeServer(routes: [
            .streaming("POST", "/peek") { _, body in
                var first = 0
                _ = try? body.readNext { first = $0.count }
                return .json(["first": first])
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("POST /peek HTTP/1.1\r\nContent-Length: 10\r\n\r\n12345")
        let response = try client.readResponse()
        XCTAssertEqual(try JSONDecoder().decode([String: Int].self, from: Data(response.body)), ["first": 5])
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertTrue(client.serverClosed())
    }

    func testUnreadBodyArrivingDuringADelay_isDroppedBeyond4MBAndTheConnectionCloses() throws {
        let server = try makeServer(routes: [
            .streaming("PUT", "/later") { _, _ in LoopbackResponse.text("done").delayed(by: 0.5) }
        ])
        let client = try RawClient(port: server.port, timeout: 30)
        try client.send("PUT /later HTTP/1.1\r\nContent-Length: \(12 << 20)\r\n\r\n")
        let piece = Data(count: 1 << 20)
        for _ in 0..<12 { try client.send(piece) }
        let response = try client.readResponse()
        XCTAssertEqual(response.bodyText, "done")
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertTrue(client.serverClosed())
        XCTAssertEqual(server.counters.clientDisconnectCount, 0)
    }

    func testMalformedChunkedBody_answers400WhateverTheHandlerReturns() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        try client.send("POST /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 400)
        XCTAssertTrue(response.bodyText.contains("malformed chunk size"), response.bodyText)
        XCTAssertTrue(client.serverClosed())
        XCTAssertEqual(server.counters.badRequestCount, 1)
    }

    func testClientVanishingMidStream_isCountedAndTheHandlerSeesTheError() throws {
        let seenError = Locked<LoopbackBodyError?>(nil)
        let server = try makeServer(routes: [
            .streaming("PUT", "/stream") { _, body in
                do {
                    try body.discardRest()
                } catch {
                    seenError.withLock { $0 = error as? LoopbackBodyError }
                }
                return .status(200)
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("PUT /stream HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n" + String(repeating: "x", count: 5000))
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestBodyBytes == 5000 })
        client.close(reset: true)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
        XCTAssertEqual(seenError.value, .clientDisconnected)
    }

    func testStreamingHandler_canBeCalledWithoutAServer() throws {
        let route = LoopbackServer.Route.streaming("POST", "/count") { _, body in
            var runs = 0
            var bytes = 0
            do {
                try body.readToEnd { run in
                    runs += 1
                    bytes += run.count
                }
            } catch {
                return .status(400)
            }
            return .json(["runs": runs, "bytes": bytes])
        }
        let request = LoopbackRequest(method: "POST", target: "/count", body: Data(count: 150_000))
        let response = route.handler(request)
        XCTAssertEqual(
            try JSONDecoder().decode([String: Int].self, from: response.body), ["runs": 3, "bytes": 150_000])

        let reader = LoopbackBodyReader(data: Data("abc".utf8))
        XCTAssertEqual(reader.declaredLength, 3)
        XCTAssertEqual(try reader.readAll(), Data("abc".utf8))
        XCTAssertTrue(reader.isComplete)
        XCTAssertFalse(try reader.readNext { _ in XCTFail("nothing is left") })
        XCTAssertThrowsError(try LoopbackBodyReader(data: Data(count: 10)).readAll(limit: 5)) { error in
            XCTAssertEqual(error as? LoopbackBodyError, .tooLarge(limit: 5))
        }
    }

    func testLargeChunkedUpload_generatedInPieces_matchesItsDigest() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port, timeout: 60)
        let total = 64 << 20
        let pieceSize = 1 << 20
        var expected = SHA256()
        try client.send(
            "PUT /upload HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/x-test\r\n\r\n")
        for offset in stride(from: 0, to: total, by: pieceSize) {
            let piece = LoopbackServer.patternBytes(in: offset..<offset + pieceSize)
            expected.update(piece)
            try client.sendChunk(piece)
        }
        try client.send("0\r\n\r\n")
        let upload = try client.readJSON(LoopbackServer.ReceivedUpload.self)
        XCTAssertEqual(
            upload,
            LoopbackServer.ReceivedUpload(
                bytes: total, sha256: expected.finalizeHex(), contentType: "application/x-test", chunked: true))
    }

    func testURLSessionUpload_withExpectContinue_isHashedWithoutLibcurlsOneSecondWait() throws {
        let server = try makeServer()
        let body = LoopbackServer.patternBytes(in: 0..<(3 << 20))
        var request = URLRequest(url: server.url(path: "/upload"))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.setValue("100-continue", forHTTPHeaderField: "Expect")
        let session = makeSession()
        let result = Locked<FetchResult?>(nil)
        let done = expectation(description: "upload")
        let started = Date()
        session.uploadTask(with: request, from: body) { data, response, error in
            result.withLock { $0 = FetchResult(data: data, response: response as? HTTPURLResponse, error: error) }
            done.fulfill()
        }.resume()
        wait(for: [done], timeout: 30)
        let elapsed = Date().timeIntervalSince(started)
        let upload = try decode(LoopbackServer.ReceivedUpload.self, from: result.value?.data)
        XCTAssertEqual(upload.bytes, body.count)
        XCTAssertEqual(upload.sha256, SHA256.hexDigest(body))
        XCTAssertEqual(upload.contentType, "application/octet-stream")
        XCTAssertEqual(server.requestLog.last?.headers["Expect"], "100-continue")
        XCTAssertEqual(server.counters.continueCount, 1)
        XCTAssertLessThan(elapsed, 1.0, "100 Continue came before libcurl's 1 s wait")
    }
}
