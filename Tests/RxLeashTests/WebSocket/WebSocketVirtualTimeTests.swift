import Foundation
import LeashTestSupport
import LeashTesting
import Rx
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `client.rx.webSocket` against `StubTransport`'s scripted server, in virtual time: the
/// conversation, keepalive and dead peers, reconnecting, the closing handshake and its
/// timer, the bounded queue, and the token refreshed on a 401 — with no real time spent.
final class WebSocketVirtualTimeTests: XCTestCase {
    private struct Chat: Endpoint {
        var path: String { "/chat" }
        var method: HTTPMethod { .get }
    }

    private var scheduler: TestScheduler!
    private var transport: StubTransport!
    private var resourcesAtStart: Int32 = 0

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0)
        transport = StubTransport(scheduler: scheduler)
        resourcesAtStart = Resources.total
    }

    override func tearDown() {
        scheduler = nil
        transport = nil
        assertResourcesReturn(to: resourcesAtStart)
        super.tearDown()
    }

    private func makeClient(_ configure: (Manager.Builder) -> Manager.Builder = { $0 }) throws -> Client {
        Client(
            manager: try configure(
                Manager.Builder().url("https://chat.example.com").transport(transport).scheduler(scheduler).timeout(60)
            ).build())
    }

    /// Options without keepalive unless a test asks for it.
    private func options(_ change: (inout WebSocketOptions) -> Void = { _ in }) -> WebSocketOptions {
        var options = WebSocketOptions()
        options.pingInterval = nil
        change(&options)
        return options
    }

    /// A reconnect policy without jitter (exact virtual times), first delay `initialDelay`.
    private func reconnectPolicy(initialDelay: TimeInterval = 1, retriesFirstConnect: Bool = false)
        -> WebSocketReconnectPolicy
    {
        var reconnect = WebSocketReconnectPolicy()
        reconnect.initialDelay = initialDelay
        reconnect.jitter = 0
        reconnect.retriesFirstConnect = retriesFirstConnect
        return reconnect
    }

    /// The events as text, for comparing whole recordings.
    private static func describe(_ event: WebSocketEvent) -> String {
        switch event {
        case .opened(let socket): return "opened \(socket.subprotocol ?? "-")"
        case .message(.text(let text)): return "text \(text)"
        case .message(.binary(let data)): return "binary \(data.count)"
        case .pong(let roundTrip): return "pong \(roundTrip)"
        case .closed(let close):
            return "closed \(close.code.rawValue) \(close.reason) \(close.wasClean ? "clean" : "unclean")"
        case .reconnecting(let attempt, let delay): return "reconnecting \(attempt) after \(delay)"
        }
    }

    func testAConversation_opensSendsReceivesAndClosesWhenTheServerDoes() throws {
        transport.stubWebSocket(path: "/chat") { peer in
            peer.send(.text("welcome"))
            peer.onMessage { peer.send($0) }
            peer.after(10) { peer.close(code: .goingAway, reason: "bye") }
        }
        let client = try makeClient()

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options())
                .do(onNext: { event in
                    if case .opened(let socket) = event {
                        socket.send(.text("hello"))
                        socket.send(.binary(Data(repeating: 7, count: 70_000)))
                    }
                })
                .map(Self.describe)
        }

        XCTAssertEqual(
            events.events,
            [
                .next(200, "opened -"), .next(200, "text welcome"), .next(200, "text hello"),
                .next(200, "binary 70000"), .next(210, "closed 1001 bye clean"), .completed(210),
            ])
        XCTAssertEqual(transport.requests.first?.value(forHTTPHeaderField: "Upgrade"), "websocket")
        XCTAssertEqual(transport.requests.first?.url?.path, "/chat")
    }

    /// The trap a new user fell in: a socket left open keeps its keepalive pings scheduled,
    /// so `scheduler.start()` never runs out of work. It now stops at the scheduler's action
    /// limit (1,000,000 by default, about 8 s of a debug build here; 2,000 in this test)
    /// and says why on standard error, instead of hanging with its memory growing.
    func testASocketLeftOpen_stopsStartAtTheActionLimit_insteadOfHanging() throws {
        transport.stubWebSocket(path: "/chat") { _ in }
        let client = try makeClient()
        scheduler.maximumActionsPerStart = 2_000
        let events = scheduler.createObserver(String.self)
        var options = WebSocketOptions()
        options.pingInterval = 30
        let subscription = client.rx.webSocket(Chat(), options: options).map(Self.describe).subscribe(events)

        scheduler.start()

        XCTAssertEqual(events.events.first, .next(0, "opened -"))
        XCTAssertGreaterThan(events.events.count, 100, "pong after pong, every 30 s, until the limit")
        XCTAssertEqual(events.events.last?.value.element?.hasPrefix("pong"), true, "still open when it stopped")
        // What the test should have done: dispose, then let the closing handshake run.
        subscription.dispose()
        scheduler.start()
    }

    func testDisposing_closesWith1000_andTheServerSeesTheCloseThenTheConnectionEnd() throws {
        let peers = SpecLocked<[StubWebSocketPeer]>([])
        transport.stubWebSocket(path: "/chat") { peer in peers.withLock { $0.append(peer) } }
        let client = try makeClient()

        let events = scheduler.start(disposed: 300) {
            client.rx.webSocket(Chat(), options: self.options()).map(Self.describe)
        }
        scheduler.advanceTo(400)

        XCTAssertEqual(events.events, [.next(200, "opened -")], "nothing after the dispose")
        let peer = try XCTUnwrap(peers.value.first)
        XCTAssertEqual(peer.clientClose?.code, .normalClosure)
        XCTAssertTrue(peer.clientClosedConnection, "the client closed its side after the handshake")
    }

    func testTheSubprotocol_offeredIsNegotiated() throws {
        transport.stubWebSocket(path: "/chat") { _ in }
        let client = try makeClient()

        let events = scheduler.start(disposed: 300) {
            client.rx.webSocket(Chat(), options: self.options { $0.subprotocols = ["chat.v2", "chat.v1"] })
                .map(Self.describe)
        }

        XCTAssertEqual(events.events, [.next(200, "opened chat.v2")])
        XCTAssertEqual(
            transport.requests.first?.value(forHTTPHeaderField: "Sec-WebSocket-Protocol"), "chat.v2, chat.v1")
    }

    func testKeepalive_reportsPongs_andADeadPeerIsClosedAfterThePongTimeout() throws {
        let alive = SpecLocked(true)
        transport.stubWebSocket(path: "/chat") { peer in
            // Answers the first two pings, then plays dead with the connection open.
            peer.after(45) {
                peer.answersPings = false
                alive.withLock { $0 = false }
            }
        }
        let client = try makeClient()

        let events = scheduler.start {
            client.rx.webSocket(
                Chat(),
                options: self.options {
                    $0.pingInterval = 20; $0.pongTimeout = 5
                }
            )
            .map(Self.describe)
        }

        XCTAssertEqual(
            events.events,
            [
                .next(200, "opened -"), .next(220, "pong 0.0"), .next(240, "pong 0.0"),
                .next(265, "closed 1006  unclean"), .completed(265),
            ])
    }

    func testAnyFrame_countsAsLife_soABusyPeerIsNotTakenForDead() throws {
        transport.stubWebSocket(path: "/chat") { peer in
            peer.answersPings = false
            // A message every 2 s, but never a pong.
            for second in stride(from: 2, through: 60, by: 2) {
                peer.after(TimeInterval(second)) { peer.send(.text("tick")) }
            }
        }
        let client = try makeClient()

        let events = scheduler.start(disposed: 255) {
            client.rx.webSocket(
                Chat(),
                options: self.options {
                    $0.pingInterval = 10; $0.pongTimeout = 5
                }
            )
            .filter { $0.close != nil }
            .map(Self.describe)
        }

        XCTAssertEqual(events.events, [], "never closed for want of a pong while messages flow")
    }

    func testReconnecting_afterTheConnectionIsCut_withBackoff_andNotAfterANormalClose() throws {
        let connects = SpecLocked(0)
        transport.stubWebSocket(path: "/chat") { peer in
            let number = connects.withLock { count -> Int in
                count += 1
                return count
            }
            peer.send(.text("connection \(number)"))
            // The first two are cut; the third closes normally.
            peer.after(10) {
                if number < 3 { peer.drop() } else { peer.close(code: .normalClosure) }
            }
        }
        let client = try makeClient()
        let reconnect = reconnectPolicy(initialDelay: 2)

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options { $0.reconnect = reconnect }).map(Self.describe)
        }

        XCTAssertEqual(
            events.events,
            [
                .next(200, "opened -"), .next(200, "text connection 1"),
                .next(210, "closed 1006  unclean"), .next(210, "reconnecting 1 after 2.0"),
                .next(212, "opened -"), .next(212, "text connection 2"),
                .next(222, "closed 1006  unclean"), .next(222, "reconnecting 2 after 4.0"),
                .next(226, "opened -"), .next(226, "text connection 3"),
                .next(236, "closed 1000  clean"), .completed(236),
            ])
    }

    func testClose_thatTheServerNeverAnswers_endsAfterTheCloseTimeout() throws {
        transport.stubWebSocket(path: "/chat") { peer in peer.answersClose = false }
        let client = try makeClient()
        let scheduler: TestScheduler = self.scheduler

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options { $0.closeTimeout = 3 })
                .do(onNext: { event in
                    if case .opened(let socket) = event {
                        _ = scheduler.scheduleRelative((), dueTime: .seconds(10)) { _ in
                            socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "done")
                            return Disposables.create()
                        }
                    }
                })
                .map(Self.describe)
        }

        XCTAssertEqual(
            events.events, [.next(200, "opened -"), .next(213, "closed 1006  unclean"), .completed(213)])
    }

    func testSend_pastTheQueueLimit_failsTyped_andEarlierMessagesStillGoOut() throws {
        let peers = SpecLocked<[StubWebSocketPeer]>([])
        transport.stubWebSocket(path: "/chat") { peer in peers.withLock { $0.append(peer) } }
        let client = try makeClient()
        let outcomes = SpecLocked<[String]>([])

        _ = scheduler.start(disposed: 300) {
            client.rx.webSocket(Chat(), options: self.options { $0.maximumQueuedBytes = 40 })
                .do(onNext: { event in
                    guard case .opened(let socket) = event else { return }
                    for text in ["first message", "second message", "third message"] {
                        // Not subscribed: the send is eager all the same.
                        let sent = socket.send(.text(text))
                        _ = sent.subscribe { event in
                            outcomes.withLock { $0.append("\(text): \(event)") }
                        }
                    }
                })
        }

        XCTAssertEqual(peers.value.first?.received, [.text("first message"), .text("second message")])
        XCTAssertEqual(outcomes.value.count, 3)
        XCTAssertTrue(outcomes.value.contains("first message: completed"), "\(outcomes.value)")
        XCTAssertTrue(
            outcomes.value.contains { $0.hasPrefix("third message: error") && $0.contains("queue") },
            "\(outcomes.value)")
    }

    func testAnUnauthorizedUpgrade_refreshesTheToken_andRetriesTheHandshake() throws {
        transport.stubWebSocket(path: "/chat", refusing: .status(401)) { peer in peer.send(.text("in")) }
        let authenticator = SpecAuthenticator(token: "old")
        let refreshes = SpecLocked(0)
        let refresher = TokenRefresher(authenticator: authenticator) {
            Completable.create { completed in
                refreshes.withLock { $0 += 1 }
                authenticator.accessToken = "new"
                completed(.completed)
                return Disposables.create()
            }
        }
        let client = try makeClient { $0.refreshing(with: refresher) }

        let events = scheduler.start(disposed: 300) {
            client.rx.webSocket(Chat(), options: self.options()).map(Self.describe)
        }

        XCTAssertEqual(events.events, [.next(200, "opened -"), .next(200, "text in")])
        XCTAssertEqual(refreshes.value, 1)
        XCTAssertEqual(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") }, ["Bearer old", "Bearer new"])
    }

    func testARefusedUpgrade_failsWithTheStatus() throws {
        transport.stubWebSocket(path: "/chat", refusing: .status(403)) { _ in }
        let client = try makeClient()

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options()).map(Self.describe)
        }

        XCTAssertEqual(events.events.count, 1)
        guard case .error(let error) = events.events.first?.value else { return XCTFail("\(events.events)") }
        XCTAssertEqual((error as? LeashError)?.statusCode, 403)
    }

    func testCancelAll_closesAnOpenSocketWith1001_andFailsWithCancelled() throws {
        let peers = SpecLocked<[StubWebSocketPeer]>([])
        transport.stubWebSocket(path: "/chat") { peer in peers.withLock { $0.append(peer) } }
        let client = try makeClient()
        _ = scheduler.scheduleRelative((), dueTime: .seconds(250)) { _ in
            client.manager.cancelAll()
            return Disposables.create()
        }

        let events = scheduler.start { client.rx.webSocket(Chat(), options: self.options()).map(Self.describe) }

        XCTAssertEqual(events.events.count, 2)
        XCTAssertEqual(events.events.first, .next(200, "opened -"))
        guard case .error(LeashError.cancelled) = events.events.last?.value else { return XCTFail("\(events.events)") }
        XCTAssertEqual(events.events.last?.time, 250)
        XCTAssertEqual(peers.value.first?.clientClose?.code, .goingAway)
    }

    func testAFirstConnectThatCannotReachTheServer_isRetriedUnderTheBackoff_whenThePolicyAsks() throws {
        // Offline twice (as an app opened without a network), then the server answers.
        transport.stubWebSocket(path: "/chat", refusing: .error(.notConnectedToInternet), .error(.cannotConnectToHost))
        {
            peer in peer.send(.text("hello"))
        }
        let client = try makeClient()
        let reconnect = reconnectPolicy(initialDelay: 2, retriesFirstConnect: true)

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options { $0.reconnect = reconnect }).map(Self.describe)
        }

        XCTAssertEqual(
            events.events,
            [
                .next(200, "reconnecting 1 after 2.0"), .next(202, "reconnecting 2 after 4.0"),
                .next(206, "opened -"), .next(206, "text hello"),
            ])
    }

    func testAFirstConnectThatCannotReachTheServer_endsTheStream_byDefault_evenWithAReconnectPolicy() throws {
        transport.stubWebSocket(path: "/chat", refusing: .error(.notConnectedToInternet)) { _ in }
        let client = try makeClient()

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options { $0.reconnect = WebSocketReconnectPolicy() })
                .map(Self.describe)
        }

        XCTAssertEqual(events.events.count, 1, "\(events.events)")
        guard case .error(let error as LeashError)? = events.events.first?.value, case .transport = error else {
            return XCTFail("expected the first connect's transport error, got \(events.events)")
        }
    }

    func testAFirstConnectTheServerRefuses_endsTheStream_evenWhenFirstConnectsAreRetried() throws {
        transport.stubWebSocket(path: "/chat", refusing: .error(.cannotConnectToHost), .status(403)) { _ in }
        let client = try makeClient()
        let reconnect = reconnectPolicy(retriesFirstConnect: true)

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options { $0.reconnect = reconnect }).map(Self.describe)
        }

        XCTAssertEqual(events.events.first, .next(200, "reconnecting 1 after 1.0"))
        XCTAssertEqual(events.events.count, 2, "\(events.events)")
        guard case .error(LeashError.unacceptableStatusCode(let failure))? = events.events.last?.value else {
            return XCTFail("expected the refusal to end the stream, got \(events.events)")
        }
        XCTAssertEqual(failure.statusCode, 403)
        XCTAssertEqual(events.events.last?.time, 201)
    }

    func testAHandshakeTheServerNeverAnswers_failsWithTheManagersTimeout() throws {
        transport.stubWebSocket(path: "/chat", refusing: StubResponse(status: 500, delay: 3600)) { _ in }
        let client = try makeClient()

        let events = scheduler.start { client.rx.webSocket(Chat(), options: self.options()).map(Self.describe) }

        XCTAssertEqual(events.events.count, 1)
        guard case .error(LeashError.timeout(let seconds)) = events.events.first?.value else {
            return XCTFail("\(events.events)")
        }
        XCTAssertEqual(seconds, 60)
        XCTAssertEqual(events.events.first?.time, 260)
    }

    func testEachReconnect_isAWholeHandshake_carryingTheCurrentToken() throws {
        let authenticator = SpecAuthenticator(token: "first")
        transport.stubWebSocket(path: "/chat") { peer in
            // The token changes while the first connection is open; then it is cut.
            peer.after(5) {
                authenticator.accessToken = "second"
                peer.drop()
            }
        }
        let client = try makeClient { $0.authenticator(authenticator) }
        let reconnect = reconnectPolicy()

        _ = scheduler.start(disposed: 210) {
            client.rx.webSocket(Chat(), options: self.options { $0.reconnect = reconnect })
        }

        XCTAssertEqual(
            transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") }, ["Bearer first", "Bearer second"])
        XCTAssertNotEqual(
            transport.requests.first?.value(forHTTPHeaderField: "Sec-WebSocket-Key"),
            transport.requests.last?.value(forHTTPHeaderField: "Sec-WebSocket-Key"), "a fresh key per handshake")
    }

    func testInvalidUTF8_inATextFrameStillArriving_failsAtOnce_notAtTheFramesEnd() throws {
        transport.stubWebSocket(path: "/chat") { peer in
            // A text frame announcing 1,000 bytes, of which only the first 10 come, the
            // sixth not UTF-8; the rest never arrives.
            var bytes = Data([0x81, 126, 0x03, 0xE8])
            bytes.append(contentsOf: Array("hello".utf8) + [0xFF] + Array("abcd".utf8))
            peer.sendRaw(bytes)
        }
        let client = try makeClient()

        let events = scheduler.start {
            client.rx.webSocket(Chat(), options: self.options { $0.closeTimeout = 2 })
                .compactMap(\.close)
        }

        XCTAssertEqual(events.events.count, 2, "\(events.events)")
        let close = events.events.first?.value.element
        guard case .webSocketProtocolViolation(_, let code)? = close?.failure else {
            return XCTFail("\(events.events)")
        }
        XCTAssertEqual(code, .invalidFramePayloadData)
        XCTAssertEqual(events.events.first?.time, 200, "failed at once (the server answered the 1007 close)")
    }

    /// Waits 5 s of virtual time before every attempt.
    private struct FiveSecondGate: RequestGate {
        let scheduler: TestScheduler
        func admission(for endpoint: Endpoint, attempt: Int) -> Completable? {
            Completable.empty().delay(.seconds(5), scheduler: scheduler)
        }
    }

    func testTheUpgrade_goesThroughAdaptersAndGates_likeAnyRequest() throws {
        transport.stubWebSocket(path: "/chat") { _ in }
        let scheduler: TestScheduler = self.scheduler
        let client = try makeClient {
            $0.adapt { request, _ in
                var request = request
                request.setValue("ios-7.1", forHTTPHeaderField: "X-Client")
                return request
            }
            .gate(FiveSecondGate(scheduler: scheduler))
        }

        let events = scheduler.start(disposed: 300) {
            client.rx.webSocket(Chat(), options: self.options()).map(Self.describe)
        }

        XCTAssertEqual(events.events, [.next(205, "opened -")], "opened once the gate let the upgrade go")
        XCTAssertEqual(transport.requests.first?.value(forHTTPHeaderField: "X-Client"), "ios-7.1")
        XCTAssertEqual(transport.requests.first?.value(forHTTPHeaderField: "Upgrade"), "websocket")
    }
}
