import Foundation
import LeashTestSupport
import LeashTesting
import LoopbackServer
import Rx
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `client.rx.webSocket` over real TCP against `LoopbackServer`'s RFC 6455 server: the wire
/// (masking, the closing handshake), what the server does wrong (each a typed close or
/// error, never a crash), the handshake through the pipeline, and backpressure.
final class WebSocketLoopbackTests: LoopbackIntegrationCase {
    /// `/ws/echo` with its script in the query.
    private struct Echo: Endpoint {
        let query: [String: String]
        var path: String { "/ws/echo" }
        var method: HTTPMethod { .get }
        var parameters: Any? { query.isEmpty ? nil : query }
        init(_ query: [String: String] = [:]) { self.query = query }
    }

    private func options(_ change: (inout WebSocketOptions) -> Void = { _ in }) -> WebSocketOptions {
        var options = WebSocketOptions()
        options.pingInterval = nil
        options.closeTimeout = 5
        change(&options)
        return options
    }

    /// The events of a socket that the server ends, with `onOpen` run on `.opened`.
    private func events(
        _ client: Client, _ endpoint: Echo, options: WebSocketOptions? = nil,
        onOpen: @escaping @Sendable (WebSocket) -> Void = { _ in }
    ) throws -> [WebSocketEvent] {
        try client.rx.webSocket(endpoint, options: options ?? self.options())
            .do(onNext: { if case .opened(let socket) = $0 { onOpen(socket) } })
            .toBlocking(timeout: 20).toArray()
    }

    private func close(of events: [WebSocketEvent], file: StaticString = #filePath, line: UInt = #line)
        -> WebSocketClose?
    {
        let closes = events.compactMap(\.close)
        XCTAssertEqual(closes.count, 1, "one close: \(events)", file: file, line: line)
        return closes.first
    }

    private func handshakeError(_ client: Client, _ endpoint: Echo, file: StaticString = #filePath, line: UInt = #line)
        -> LeashError?
    {
        let result = client.rx.webSocket(endpoint, options: options()).toBlocking(timeout: 20).materialize()
        guard case .failed(let elements, let error) = result else {
            XCTFail("expected a failed handshake, got \(result)", file: file, line: line)
            return nil
        }
        XCTAssertTrue(elements.isEmpty, "nothing before the failure: \(elements)", file: file, line: line)
        return error as? LeashError
    }

    // MARK: Reconnecting

    func testAFirstConnectToAServerNotYetListening_isRetried_andOpensOnceTheServerIsUp() throws {
        // The port of a server that is stopped: connects to it are refused until another
        // server listens there.
        let port = UInt16(server.port)
        let client = try makeClient()
        server.stop()
        let later = SpecLocked<LoopbackServer?>(nil)
        defer { later.value?.stop() }
        var reconnect = WebSocketReconnectPolicy()
        reconnect.initialDelay = 0.2
        reconnect.jitter = 0
        reconnect.retriesFirstConnect = true
        let echoed = expectation(description: "the echo, over the connection opened on the retry")
        let seen = SpecLocked<[String]>([])

        let subscription = client.rx.webSocket(Echo(), options: options { $0.reconnect = reconnect })
            .subscribe(onNext: { event in
                switch event {
                case .reconnecting(let attempt, _):
                    seen.withLock { $0.append("reconnecting \(attempt)") }
                    // The server comes up during the backoff.
                    if attempt == 1, let server = try? LoopbackServer(port: port) {
                        server.start()
                        later.withLock { $0 = server }
                    }
                case .opened(let socket):
                    seen.withLock { $0.append("opened") }
                    socket.send(.text("after the retry"))
                case .message(.text(let text)):
                    seen.withLock { $0.append("text \(text)") }
                    echoed.fulfill()
                default: break
                }
            })
        wait(for: [echoed], timeout: 20)
        subscription.dispose()

        XCTAssertEqual(seen.value, ["reconnecting 1", "opened", "text after the retry"])
        XCTAssertNotNil(later.value, "the second server started on the same port")
    }

    // MARK: The conversation

    func testEcho_textAndAMegabyteOfBinary_eachFrameMaskedWithAFreshKey_thenDisposeClosesWith1000() throws {
        let client = try makeClient()
        let big = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let received = SpecLocked<[WebSocketMessage]>([])
        let echoed = expectation(description: "both echoes")

        let subscription = client.rx.webSocket(Echo(), options: options())
            .subscribe(onNext: { event in
                switch event {
                case .opened(let socket):
                    socket.send(.text("héllo"))
                    socket.send(.binary(big))
                case .message(let message):
                    let count = received.withLock { messages -> Int in
                        messages.append(message)
                        return messages.count
                    }
                    if count == 2 { echoed.fulfill() }
                default: break
                }
            })
        wait(for: [echoed], timeout: 20)
        subscription.dispose()

        XCTAssertEqual(received.value, [.text("héllo"), .binary(big)])
        let log = server.waitForWebSocket(timeout: 10) { $0.clientClosedTCPAfterCloseFrame }
        XCTAssertEqual(log?.closeReceived?.code, 1000, "the server saw the close handshake")
        let frames = log?.frames.filter { $0.opcode == 0x1 || $0.opcode == 0x2 } ?? []
        XCTAssertEqual(frames.count, 2)
        XCTAssertTrue(frames.allSatisfy(\.isMasked))
        XCTAssertEqual(
            Set(log?.frames.compactMap(\.maskingKey) ?? []).count, log?.frames.count, "a fresh key per frame")
        XCTAssertEqual(log?.request.headers["Sec-WebSocket-Version"], "13")
    }

    func testTheServersClose_isReportedWithItsCodeAndReason_thenTheObservableCompletes() throws {
        let events = try events(try makeClient(), Echo(["close": "4001", "reason": "see you"]))

        XCTAssertEqual(
            close(of: events),
            WebSocketClose(code: WebSocketCloseCode(rawValue: 4001), reason: "see you", wasClean: true))
        XCTAssertEqual(
            server.waitForWebSocket(timeout: 5) { $0.closeReceived != nil }?.closeReceived?.code, 4001, "echoed")
    }

    func testAClose_startedByTheApp_isAnsweredAndReported() throws {
        let events = try events(try makeClient(), Echo()) { socket in
            socket.send(.text("last words"))
            socket.close(code: WebSocketCloseCode(rawValue: 4100), reason: "done")
        }

        XCTAssertEqual(events.compactMap(\.message), [.text("last words")], "queued messages go out before the close")
        // The close reported is the server's answer (RFC 6455 §7.1.5), which echoes the code.
        XCTAssertEqual(close(of: events), WebSocketClose(code: WebSocketCloseCode(rawValue: 4100), wasClean: true))
        let log = server.waitForWebSocket(timeout: 5) { $0.closeReceived != nil }
        XCTAssertEqual(log?.closeReceived?.reasonText, "done")
    }

    func testSubprotocol_chosenByTheServer_amongThoseOffered() throws {
        let events = try events(
            try makeClient(), Echo(["protocols": "chat.v1,chat.v2", "close": "1000"]),
            options: options { $0.subprotocols = ["chat.v2", "chat.v1"] })

        XCTAssertEqual(events.first?.socket?.subprotocol, "chat.v2")
    }

    // MARK: What the server does wrong

    func testAConnectionCut_isA1006Close_notAnError() throws {
        for query in [["drop": "1"], ["dropMidFrame": "1"]] {
            let close = close(of: try events(try makeClient(), Echo(query)))
            XCTAssertEqual(close?.code, .abnormalClosure, "\(query)")
            XCTAssertEqual(close?.wasClean, false, "\(query)")
        }
    }

    func testProtocolViolations_closeWithTheirCode_andSayWhy() throws {
        let cases: [([String: String], UInt16)] = [
            (["masked": "1"], 1002), (["rsv": "4"], 1002), (["opcode": "3"], 1002), (["invalidUTF8": "1"], 1007),
            (["badCloseReason": "1"], 1007), (["closeCode": "1005"], 1002), (["closeCode": "999"], 1002),
            (["closeCode": "5000"], 1002),
        ]
        for (query, code) in cases {
            let close = close(of: try events(try makeClient(), Echo(query)))
            guard case .webSocketProtocolViolation(_, let sent)? = close?.failure else {
                XCTFail("\(query): expected a protocol violation, got \(String(describing: close))")
                continue
            }
            XCTAssertEqual(sent.rawValue, code, "\(query)")
            XCTAssertFalse(close?.wasClean ?? true, "\(query)")
            let log = server.waitForWebSocket(timeout: 5) {
                $0.request.target.contains(query.keys.first ?? "") && $0.isFinished
            }
            XCTAssertEqual(log?.closeReceived?.code, code, "\(query): the server was told why")
        }
    }

    func testAMessageOverTheLimit_closesWith1009_withoutBufferingIt() throws {
        let events = try events(
            try makeClient(), Echo(["message": "\(16 * 1024 * 1024)"]),
            options: options { $0.maximumMessageSize = 1024 * 1024 })

        XCTAssertEqual(events.compactMap(\.message), [])
        guard case .webSocketProtocolViolation(_, let code)? = close(of: events)?.failure else {
            return XCTFail("\(events)")
        }
        XCTAssertEqual(code, .messageTooBig)
    }

    func testAServerThatNeverAnswersTheClose_isCutAfterTheCloseTimeout() throws {
        let events = try events(
            try makeClient(), Echo(["ignoreClose": "1"]), options: options { $0.closeTimeout = 0.5 }
        ) {
            $0.close()
        }

        let close = close(of: events)
        XCTAssertEqual(close?.code, .abnormalClosure)
        XCTAssertEqual(close?.wasClean, false)
        guard case .timeout? = close?.failure else { return XCTFail("\(String(describing: close))") }
    }

    /// Found by the soak: a chat that said goodbye was reconnected when its closing
    /// handshake was cut (a 1006, which the policy reconnects after by default).
    func testAClosingHandshakeCutShort_isNotReconnected_whenTheAppAskedForTheClose() throws {
        var reconnect = WebSocketReconnectPolicy()
        reconnect.initialDelay = 0.01
        reconnect.jitter = 0
        reconnect.maximumAttempts = 3
        let events = try events(
            try makeClient(), Echo(["ignoreClose": "1"]),
            options: options {
                $0.closeTimeout = 0.3
                $0.reconnect = reconnect
            }
        ) {
            $0.close()
        }

        XCTAssertEqual(close(of: events)?.code, .abnormalClosure)
        XCTAssertEqual(events.filter { if case .opened = $0 { return true } else { return false } }.count, 1)
        XCTAssertEqual(server.webSocketLogs.count, 1, "one handshake: no reconnection")
    }

    func testADeadPeer_isDetectedByThePongTimeout() throws {
        let events = try events(
            try makeClient(), Echo(["ignorePings": "1"]),
            options: options {
                $0.pingInterval = 0.2; $0.pongTimeout = 0.3
            })

        let close = close(of: events)
        XCTAssertEqual(close?.code, .abnormalClosure)
        guard case .timeout? = close?.failure else { return XCTFail("\(String(describing: close))") }
    }

    // MARK: The handshake

    func testAHandshakeThatIsNotAnUpgrade_failsTyped() throws {
        let client = try makeClient()

        XCTAssertEqual(handshakeError(client, Echo(["status": "200"]))?.statusCode, 200)
        XCTAssertEqual(handshakeError(client, Echo(["status": "403"]))?.statusCode, 403)
        for query in [
            ["accept": "wrong"], ["accept": "missing"], ["protocol": "unoffered"], ["extensions": "x-unknown"],
        ] {
            guard case .invalidResponse(let reason)? = handshakeError(client, Echo(query)) else {
                XCTFail("\(query)")
                continue
            }
            XCTAssertTrue(reason.contains("handshake"), reason)
        }
    }

    func testAServerThatNeverAnswersTheUpgrade_timesOutWithTheManagersTimeout() throws {
        let client = try makeClient { $0.timeout(0.5) }

        guard case .timeout(let seconds)? = handshakeError(client, Echo(["hang": "1"])) else { return XCTFail() }
        XCTAssertEqual(seconds, 0.5)
    }

    func testAnUnauthorizedUpgrade_isRefreshedOnce_andRetried() throws {
        let authenticator = SpecAuthenticator(token: "stale")
        let refreshes = SpecLocked(0)
        let refresher = TokenRefresher(authenticator: authenticator) {
            Completable.create { completed in
                refreshes.withLock { $0 += 1 }
                authenticator.accessToken = "fresh"
                completed(.completed)
                return Disposables.create()
            }
        }
        let client = try makeClient { $0.refreshing(with: refresher) }

        let events = try events(client, Echo(["authorization": "Bearer fresh", "close": "1000"]))

        XCTAssertNotNil(events.first?.socket)
        XCTAssertEqual(refreshes.value, 1)
        let upgrades = server.requestLog.filter { $0.path == "/ws/echo" }.map { $0.headers["Authorization"] }
        XCTAssertEqual(upgrades, ["Bearer stale", "Bearer fresh"])
    }

    func testCancelAll_closesWith1001() throws {
        let client = try makeClient()
        let opened = expectation(description: "opened")
        let failed = expectation(description: "cancelled")
        let subscription = client.rx.webSocket(Echo(), options: options())
            .subscribe(
                onNext: { if $0.socket != nil { opened.fulfill() } },
                onError: { if case LeashError.cancelled = $0 { failed.fulfill() } })
        wait(for: [opened], timeout: 10)

        client.manager.cancelAll()

        wait(for: [failed], timeout: 10)
        subscription.dispose()
        XCTAssertEqual(server.waitForWebSocket(timeout: 10) { $0.closeReceived != nil }?.closeReceived?.code, 1001)
    }

    // MARK: Backpressure

    /// A subscriber that takes nothing holds the server back: it can write only what the
    /// socket buffers and the client's one read hold, far below what it wants to send; once
    /// the subscriber goes on, everything arrives.
    func testASlowSubscriber_holdsTheServerBack_throughTCP() throws {
        let total = 64 * 1024 * 1024
        let gate = DispatchSemaphore(value: 0)
        let done = expectation(description: "all received")
        let bytes = SpecLocked(0)
        let client = try makeClient()

        let subscription = client.rx.webSocket(Echo(["flood": "\(total)"]), options: options())
            .subscribe(onNext: { event in
                guard case .message(.binary(let data)) = event else { return }
                let first = bytes.withLock { count -> Bool in
                    count += data.count
                    if count == total { done.fulfill() }
                    return count == data.count
                }
                if first { gate.wait() }
            })
        defer { subscription.dispose() }

        // The server stops short of everything while the subscriber holds its first message.
        let stalled = server.waitForWebSocket(timeout: 2) { $0.floodBytesWritten >= total }
        XCTAssertNil(stalled, "the server wrote everything while nothing was taken")
        let written = server.webSocketLogs.last?.floodBytesWritten ?? 0
        XCTAssertLessThan(written, 16 * 1024 * 1024, "held back well before the end")
        gate.signal()
        wait(for: [done], timeout: 30)
    }
}
