import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `LoopbackResponse.streamed`: chunks written over time, a departed client, a dropped
/// connection, backpressure, and `stop()` ending streams.
final class StreamedResponseTests: LoopbackTestCase {
    func testChunks_arriveWhileTheWriterIsStillWriting() throws {
        let release = DispatchSemaphore(value: 0)
        let released = Locked<Bool?>(nil)
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                .streamed(headers: ["Content-Type": "text/plain"]) { writer in
                    writer.write("first")
                    let outcome = release.wait(timeout: .now() + 10)
                    released.withLock { $0 = outcome == .success }
                    writer.write(Data("second".utf8))
                }
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\n\r\n")
        let head = try client.readHead()
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Transfer-Encoding"], "chunked")
        XCTAssertEqual(head.headers["Content-Type"], "text/plain")
        XCTAssertNil(head.headers["Content-Length"])
        XCTAssertEqual(try client.readChunk(), Array("first".utf8), "the first chunk comes while the writer waits")
        XCTAssertNil(released.value)
        release.signal()
        XCTAssertEqual(try client.readChunk(), Array("second".utf8))
        XCTAssertNil(try client.readChunk(), "returning writes the terminating chunk")
        XCTAssertEqual(released.value, true)
        XCTAssertEqual(server.counters.responseBodyBytes, 11)

        try client.send("GET /json HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, LoopbackServer.sampleJSON, "the connection stays usable")
        XCTAssertEqual(server.counters.connectionCount, 1)
    }

    func testChunks_reachAURLSessionDelegateOneByOne() throws {
        let release = DispatchSemaphore(value: 0)
        let released = Locked<Bool?>(nil)
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                .streamed { writer in
                    writer.write("first;")
                    let outcome = release.wait(timeout: .now() + 10)
                    released.withLock { $0 = outcome == .success }
                    writer.write("second")
                }
            }
        ])
        let done = expectation(description: "task completes")
        let delegate = StreamDelegate(onFirstData: { release.signal() }, onCompletion: { done.fulfill() })
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        addTeardownBlock { session.invalidateAndCancel() }
        session.dataTask(with: server.url(path: "/stream")).resume()
        wait(for: [done], timeout: 30)
        XCTAssertNil(delegate.state.value.error)
        XCTAssertEqual(delegate.state.value.received, [Data("first;".utf8), Data("second".utf8)])
        XCTAssertEqual(released.value, true, "the delegate saw the first chunk before the second was written")
    }

    func testWrite_returnsFalseOnceTheClientHasGone_andTheDisconnectIsCounted() throws {
        let clientGone = DispatchSemaphore(value: 0)
        let ended = expectation(description: "the writer returns")
        /// What the writer saw once the client had closed.
        struct Seen: Sendable {
            var connectedAtFirst = false
            var writesAfterClose = 0
            var connectedAfter = true
            var pauseAfter = true
            var bytesWritten = 0
        }
        let seen = Locked(Seen())
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                .streamed { writer in
                    // Asked before the write: once "hello" is out, the client may leave.
                    let connected = writer.isClientConnected
                    let first = writer.write("hello")
                    _ = clientGone.wait(timeout: .now() + 10)
                    var writes = 0
                    while writes < 10_000, writer.write(Data(count: 1024)) { writes += 1 }
                    let total = writer.bytesWritten
                    seen.withLock {
                        $0 = Seen(
                            connectedAtFirst: first && connected, writesAfterClose: writes,
                            connectedAfter: writer.isClientConnected, pauseAfter: writer.pause(0.01),
                            bytesWritten: total)
                    }
                    ended.fulfill()
                }
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\n\r\n")
        _ = try client.readHead()
        XCTAssertEqual(try client.readChunk(), Array("hello".utf8))
        client.close()
        clientGone.signal()
        wait(for: [ended], timeout: 10)
        XCTAssertTrue(seen.value.connectedAtFirst)
        XCTAssertLessThan(seen.value.writesAfterClose, 10, "writes fail soon after the client left")
        XCTAssertFalse(seen.value.connectedAfter)
        XCTAssertFalse(seen.value.pauseAfter)
        XCTAssertEqual(seen.value.bytesWritten, 5 + 1024 * seen.value.writesAfterClose)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
    }

    func testPause_returnsFalseAsSoonAsTheClientLeaves() throws {
        let ended = expectation(description: "the writer returns")
        let paused = Locked<(result: Bool, seconds: TimeInterval)?>(nil)
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                .streamed { writer in
                    writer.write("tick")
                    let started = Date()
                    let result = writer.pause(30)
                    paused.withLock { $0 = (result, Date().timeIntervalSince(started)) }
                    ended.fulfill()
                }
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\n\r\n")
        _ = try client.readHead()
        XCTAssertEqual(try client.readChunk(), Array("tick".utf8))
        client.close()
        wait(for: [ended], timeout: 10)
        XCTAssertEqual(paused.value?.result, false)
        XCTAssertLessThan(paused.value?.seconds ?? 30, 10)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 })
    }

    func testDropConnection_truncatesTheBody() throws {
        let after = Locked<(write: Bool, pause: Bool, connected: Bool)?>(nil)
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                .streamed { writer in
                    writer.write("partial")
                    writer.dropConnection()
                    after.withLock { $0 = (writer.write("more"), writer.pause(1), writer.isClientConnected) }
                }
            }
        ])
        let client = try RawClient(port: server.port)
        try client.send("GET /stream HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readHead().status, 200)
        let body = try client.readChunks()
        XCTAssertEqual(body.chunks, [Array("partial".utf8)])
        XCTAssertFalse(body.complete, "no terminating chunk")
        client.close()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.openConnectionCount == 0 })
        XCTAssertEqual(after.value?.write, false)
        XCTAssertEqual(after.value?.pause, false)
        XCTAssertEqual(after.value?.connected, false)

        let result = fetch(server.url(path: "/stream"), on: makeSession())
        XCTAssertNotNil(result.error, "URLSession sees a truncated body: \(result.text ?? "")")
        XCTAssertEqual(server.counters.clientDisconnectCount, 0, "the server dropped it, not the client")
    }

    func testAClientThatStopsReading_stopsTheWriter() throws {
        let total = 256 << 20
        let piece = 64 * 1024
        let writer = Locked<LoopbackStreamWriter?>(nil)
        let ended = expectation(description: "the writer returns")
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                .streamed { streamWriter in
                    writer.withLock { $0 = streamWriter }
                    let bytes = Data(count: piece)
                    for _ in 0..<(total / piece) {
                        guard streamWriter.write(bytes) else { break }
                    }
                    ended.fulfill()
                }
            }
        ])
        let client = try RawClient(port: server.port, receiveBufferSize: 64 * 1024)
        try client.send("GET /stream HTTP/1.1\r\n\r\n")
        _ = try client.readHead()
        XCTAssertEqual(try client.readBody(count: piece), piece)

        // The client reads no more: the count must stop growing (a stalled writer).
        let stalled = settledResponseBodyBytes(of: server)
        XCTAssertGreaterThan(stalled, 0)
        XCTAssertLessThan(stalled, total / 8, "the writer waits for the client well short of the end")
        XCTAssertEqual(writer.value?.bytesWritten, stalled)
        XCTAssertEqual(writer.value?.isClientConnected, true, "asked from another thread while the write blocks")

        XCTAssertEqual(try client.readBody(count: 8 << 20), 8 << 20)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.responseBodyBytes > stalled }, "reading lets it go on")
        client.close()
        wait(for: [ended], timeout: 10)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 && $0.openConnectionCount == 0 })
        XCTAssertLessThan(server.counters.responseBodyBytes, total)
    }

    func testStop_endsBlockedPausedAndEndlessStreamsPromptly() throws {
        let blockedEnded = expectation(description: "the blocked writer returns")
        let pausedEnded = expectation(description: "the pausing writer returns")
        let pauseResult = Locked<Bool?>(nil)
        let server = try makeServer(routes: [
            .get("/blocked") { _ in
                .streamed { writer in
                    let bytes = Data(count: 64 * 1024)
                    while writer.write(bytes) {}
                    blockedEnded.fulfill()
                }
            },
            .get("/paused") { _ in
                .streamed { writer in
                    writer.write("x")
                    pauseResult.withLock { $0 = writer.pause(60) }
                    pausedEnded.fulfill()
                }
            },
        ])
        let blocked = try RawClient(port: server.port, receiveBufferSize: 64 * 1024)
        try blocked.send("GET /blocked HTTP/1.1\r\n\r\n")
        let paused = try RawClient(port: server.port)
        try paused.send("GET /paused HTTP/1.1\r\n\r\n")
        _ = try paused.readHead()
        XCTAssertEqual(try paused.readChunk(), Array("x".utf8))
        let endless = try RawClient(port: server.port)
        try endless.send("GET /stream/chunks?forever=1&size=65536 HTTP/1.1\r\n\r\n")
        _ = try endless.readHead()
        XCTAssertNotNil(try endless.readChunk())
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 3 })
        _ = settledResponseBodyBytes(of: server)

        let started = Date()
        server.stop()
        wait(for: [blockedEnded, pausedEnded], timeout: 5)
        XCTAssertTrue(server.waitUntil(timeout: 5) { $0.openConnectionCount == 0 })
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        XCTAssertEqual(pauseResult.value, false)
        for client in [blocked, paused, endless] { XCTAssertTrue(client.serverClosed()) }
        XCTAssertEqual(server.counters.clientDisconnectCount, 0, "the server ended them, not the clients")
    }

    func testHeadRequestsAndBodilessStatuses_getTheHeadAlone() throws {
        let runs = Locked(0)
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                .streamed { writer in
                    runs.withLock { $0 += 1 }
                    writer.write("body")
                }
            },
            .get("/nothing") { _ in
                .streamed(status: 204) { writer in
                    runs.withLock { $0 += 1 }
                    writer.write("body")
                }
            },
        ])
        let client = try RawClient(port: server.port)
        try client.send("HEAD /stream HTTP/1.1\r\n\r\n")
        let head = try client.readResponse(forHead: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["Transfer-Encoding"], "chunked")
        try client.send("GET /nothing HTTP/1.1\r\n\r\n")
        let empty = try client.readResponse()
        XCTAssertEqual(empty.status, 204)
        XCTAssertNil(empty.headers["Transfer-Encoding"])
        try client.send("GET /stream HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "body", "the connection stays in step")
        XCTAssertEqual(runs.value, 1, "only the GET with a body ran the writer")
    }

    func testDelayStatusHeadersAndClosing_apply() throws {
        let server = try makeServer(routes: [
            .get("/stream") { _ in
                LoopbackResponse.streamed(status: 202, headers: ["X-Kind": "stream"]) { writer in
                    writer.write("a")
                    writer.write("")
                    writer.write("b")
                }
                .delayed(by: 0.1).closingConnection()
            }
        ])
        let client = try RawClient(port: server.port)
        let started = Date()
        try client.send("GET /stream HTTP/1.1\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.1)
        XCTAssertEqual(response.status, 202)
        XCTAssertEqual(response.headers["X-Kind"], "stream")
        XCTAssertEqual(response.headers["Connection"], "close")
        XCTAssertEqual(response.chunkSizes, [1, 1], "an empty write sends nothing")
        XCTAssertTrue(client.serverClosed())
    }

    /// `responseBodyBytes` once it has stopped changing for 300 ms (at most 20 s): how far a
    /// writer got before it stalled.
    private func settledResponseBodyBytes(of server: LoopbackServer) -> Int {
        var last = server.counters.responseBodyBytes
        var lastChange = Date()
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            let now = server.counters.responseBodyBytes
            if now != last {
                last = now
                lastChange = Date()
            } else if Date().timeIntervalSince(lastChange) >= 0.3 {
                break
            }
        }
        return last
    }
}

/// Records what a data task delivers, piece by piece.
private final class StreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// What arrived so far.
    struct State: Sendable {
        /// Each delivery of body bytes, in order.
        var received: [Data] = []
        /// The task's error once it completed.
        var error: (any Error)?
    }

    /// What arrived so far.
    let state = Locked(State())
    /// Called after the first delivery of body bytes.
    private let onFirstData: @Sendable () -> Void
    /// Called once the task completed.
    private let onCompletion: @Sendable () -> Void

    /// A delegate calling `onFirstData` after the first bytes and `onCompletion` at the end.
    init(onFirstData: @escaping @Sendable () -> Void, onCompletion: @escaping @Sendable () -> Void) {
        self.onFirstData = onFirstData
        self.onCompletion = onCompletion
    }

    /// Records a delivery of body bytes.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let isFirst = state.withLock { state -> Bool in
            state.received.append(data)
            return state.received.count == 1
        }
        if isFirst { onFirstData() }
    }

    /// Records how the task ended.
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { $0.error = error }
        onCompletion()
    }
}
