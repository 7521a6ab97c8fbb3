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

/// `WebSocketSession` against `StubTransport`'s scripted server, in virtual time: sends kept
/// while connecting and reconnecting, their bounds and timeout, what a late subscriber
/// learns, and every way a session ends.
final class WebSocketSessionVirtualTimeTests: XCTestCase {
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

    private func makeClient() throws -> Client {
        Client(
            manager: try Manager.Builder().url("https://chat.example.com").transport(transport).scheduler(scheduler)
                .timeout(60).build())
    }

    /// No keepalive (a ping timer would keep virtual time running), reconnecting after
    /// `reconnectDelay` seconds without jitter when given.
    private func options(reconnectDelay: TimeInterval? = nil, _ change: (inout WebSocketOptions) -> Void = { _ in })
        -> WebSocketOptions
    {
        var options = WebSocketOptions()
        options.pingInterval = nil
        if let reconnectDelay {
            var reconnect = WebSocketReconnectPolicy()
            reconnect.initialDelay = reconnectDelay
            reconnect.jitter = 0
            options.reconnect = reconnect
        }
        change(&options)
        return options
    }

    /// The events as text, for comparing whole recordings.
    private static func describe(_ event: WebSocketEvent) -> String {
        switch event {
        case .opened: return "opened"
        case .message(.text(let text)): return "text \(text)"
        case .message(.binary(let data)): return "binary \(data.count)"
        case .pong: return "pong"
        case .closed(let close): return "closed \(close.code.rawValue)"
        case .reconnecting(let attempt, let delay): return "reconnecting \(attempt) after \(delay)"
        }
    }

    /// Records a send's outcome, at its virtual time, under `name`.
    private func record(_ send: Completable, _ name: String, into outcomes: SpecLocked<[String]>) {
        let scheduler: TestScheduler = scheduler
        _ = send.subscribe { event in
            let text: String
            switch event {
            case .completed: text = "written"
            case .error(let error): text = "failed: \(error)"
            }
            outcomes.withLock { $0.append("\(scheduler.clock) \(name) \(text)") }
        }
    }

    /// Every connection's peer, in order; `offline`: the first connect cannot reach the server.
    private func recordPeers(
        offline: Bool = false, _ conversation: @escaping @Sendable (StubWebSocketPeer, Int) -> Void = { _, _ in }
    ) -> SpecLocked<[StubWebSocketPeer]> {
        let peers = SpecLocked<[StubWebSocketPeer]>([])
        let conversation: @Sendable (StubWebSocketPeer) -> Void = { peer in
            let number = peers.withLock { peers -> Int in
                peers.append(peer)
                return peers.count
            }
            conversation(peer, number)
        }
        if offline {
            transport.stubWebSocket(path: "/chat", refusing: .error(.cannotConnectToHost), conversation: conversation)
        } else {
            transport.stubWebSocket(path: "/chat", conversation: conversation)
        }
        return peers
    }

    // MARK: Sends that wait

    /// An app opened while offline: the first connect cannot reach the server, and is
    /// retried after 2 s (`retriesFirstConnect`).
    private func offlineAtFirst(_ change: (inout WebSocketOptions) -> Void = { _ in }) -> WebSocketOptions {
        options(reconnectDelay: 2) {
            $0.reconnect?.retriesFirstConnect = true
            change(&$0)
        }
    }

    func testSendsMadeBeforeTheFirstOpen_areKept_andWrittenInOrderOnceItOpens() throws {
        let peers = recordPeers(offline: true)
        let session = try makeClient().webSocketSession(Chat(), options: offlineAtFirst())
        let outcomes = SpecLocked<[String]>([])
        XCTAssertEqual(session.state, .reconnecting(attempt: 1, delay: 2))

        record(session.send(.text("first")), "first", into: outcomes)
        record(session.send(.binary(Data([1, 2, 3]))), "second", into: outcomes)
        XCTAssertEqual(outcomes.value, [], "kept, not failed, while the first connect waits")
        scheduler.start()

        XCTAssertEqual(peers.value.first?.received, [.text("first"), .binary(Data([1, 2, 3]))])
        XCTAssertEqual(outcomes.value, ["2 first written", "2 second written"])
        XCTAssertNotNil(session.state.socket)
        session.close()
        scheduler.start()
        XCTAssertEqual(session.state, .ended(failure: nil))
    }

    func testAMessageTypedWhileReconnecting_isWrittenOnTheNextConnection_afterTheEarlierOnes() throws {
        // The first connection is cut at 10; the next opens at 12 (a 2 s backoff).
        let peers = recordPeers { peer, number in
            if number == 1 { peer.after(10) { peer.drop() } }
        }
        let session = try makeClient().webSocketSession(Chat(), options: options(reconnectDelay: 2))
        let events = scheduler.createObserver(String.self)
        let subscription = session.events.map(Self.describe).subscribe(events)
        let outcomes = SpecLocked<[String]>([])
        scheduler.scheduleAt(5) { self.record(session.send(.text("before the drop")), "before", into: outcomes) }
        scheduler.scheduleAt(11) {
            XCTAssertEqual(session.state, .reconnecting(attempt: 1, delay: 2))
            self.record(session.send(.text("typed while reconnecting")), "typed", into: outcomes)
            self.record(session.send(.text("and another")), "another", into: outcomes)
        }
        scheduler.scheduleAt(20) { session.close() }
        scheduler.start()
        subscription.dispose()

        XCTAssertEqual(
            events.events,
            [
                .next(0, "opened"), .next(10, "closed 1006"), .next(10, "reconnecting 1 after 2.0"),
                .next(12, "opened"), .next(20, "closed 1000"), .completed(20),
            ])
        XCTAssertEqual(peers.value.count, 2)
        XCTAssertEqual(peers.value.first?.received, [.text("before the drop")])
        XCTAssertEqual(peers.value.last?.received, [.text("typed while reconnecting"), .text("and another")])
        XCTAssertEqual(outcomes.value, ["5 before written", "12 typed written", "12 another written"])
    }

    func testKeptMessages_areBoundedByMaximumQueuedBytes_andTheOneOverFailsTyped() throws {
        let peers = recordPeers(offline: true)
        // Uncompressed, so that the open connection's own bound (the same limit, over the
        // encoded frames) takes the messages that fit here.
        let session = try makeClient().webSocketSession(
            Chat(),
            options: offlineAtFirst {
                $0.maximumQueuedBytes = 100
                $0.offersCompression = false
            })
        let outcomes = SpecLocked<[String]>([])
        let (fifty, sixty, thirty) = (
            String(repeating: "a", count: 50), String(repeating: "b", count: 60), String(repeating: "c", count: 30)
        )

        record(session.send(.text(fifty)), "fifty", into: outcomes)
        record(session.send(.text(sixty)), "sixty", into: outcomes)
        record(session.send(.text(thirty)), "thirty", into: outcomes)
        scheduler.start()
        session.close()
        scheduler.start()

        XCTAssertEqual(peers.value.first?.received, [.text(fifty), .text(thirty)])
        let full = LeashError.webSocketSendFailed(.queueFull(queuedBytes: 50, messageBytes: 60, limit: 100))
        XCTAssertEqual(outcomes.value, ["0 sixty failed: \(full)", "2 fifty written", "2 thirty written"])
    }

    func testAKeptMessage_olderThanTheSendTimeout_failsTyped_andIsNeverWritten() throws {
        let peers = recordPeers { peer, number in
            if number == 1 { peer.after(10) { peer.drop() } }
        }
        let session = try makeClient().webSocketSession(
            Chat(), options: options(reconnectDelay: 10) { $0.sendTimeout = 3 })
        let outcomes = SpecLocked<[String]>([])
        scheduler.scheduleAt(11) { self.record(session.send(.text("stale")), "stale", into: outcomes) }
        scheduler.scheduleAt(18) { self.record(session.send(.text("fresh")), "fresh", into: outcomes) }
        scheduler.scheduleAt(30) { session.close() }
        scheduler.start()

        XCTAssertEqual(
            outcomes.value,
            ["14 stale failed: \(LeashError.webSocketSendFailed(.timedOut(limit: 3)))", "20 fresh written"])
        XCTAssertEqual(peers.value.last?.received, [.text("fresh")])
    }

    func testMessagesKeptWhenTheSessionEnds_failAsClosed() throws {
        // The server refuses every reconnect's handshake: the session ends with that error.
        let connects = SpecLocked(0)
        transport.stubWebSocket(path: "/chat", refusing: .status(403)) { _ in connects.withLock { $0 += 1 } }
        let session = try makeClient().webSocketSession(Chat(), options: options())
        let outcomes = SpecLocked<[String]>([])
        record(session.send(.text("never")), "never", into: outcomes)
        scheduler.start()

        XCTAssertEqual(connects.value, 0)
        XCTAssertEqual(outcomes.value, ["0 never failed: \(LeashError.webSocketSendFailed(.closed))"])
        guard case .ended(let failure?) = session.state, case .unacceptableStatusCode? = failure as? LeashError else {
            return XCTFail("expected the refusal, got \(session.state)")
        }
        record(session.send(.text("after")), "after", into: outcomes)
        XCTAssertEqual(outcomes.value.last, "0 after failed: \(LeashError.webSocketSendFailed(.closed))")
    }

    // MARK: Late subscribers

    func testALateSubscriber_firstLearnsTheCurrentState_thenWhatHappens() throws {
        _ = recordPeers { peer, number in
            if number == 1 { peer.after(10) { peer.drop() } }
            peer.onMessage { peer.send($0) }
        }
        let session = try makeClient().webSocketSession(Chat(), options: options(reconnectDelay: 5))
        let whileOpen = scheduler.createObserver(String.self)
        let whileReconnecting = scheduler.createObserver(String.self)
        let afterTheEnd = scheduler.createObserver(String.self)
        let bag = DisposeBag()
        scheduler.scheduleAt(3) {
            session.events.map(Self.describe).subscribe(whileOpen).disposed(by: bag)
            session.send(.text("echo"))
        }
        scheduler.scheduleAt(12) { session.events.map(Self.describe).subscribe(whileReconnecting).disposed(by: bag) }
        scheduler.scheduleAt(20) { session.close(code: WebSocketCloseCode(rawValue: 4000)) }
        scheduler.scheduleAt(25) { session.events.map(Self.describe).subscribe(afterTheEnd).disposed(by: bag) }
        scheduler.start()

        XCTAssertEqual(
            whileOpen.events,
            [
                .next(3, "opened"), .next(3, "text echo"), .next(10, "closed 1006"),
                .next(10, "reconnecting 1 after 5.0"),
                .next(15, "opened"), .next(20, "closed 4000"), .completed(20),
            ])
        XCTAssertEqual(
            whileReconnecting.events,
            [.next(12, "reconnecting 1 after 5.0"), .next(15, "opened"), .next(20, "closed 4000"), .completed(20)])
        XCTAssertEqual(afterTheEnd.events, [.completed(25)])
    }

    func testDisposingASubscription_leavesTheSessionRunningForTheOthers() throws {
        let peers = recordPeers { peer, _ in peer.onMessage { peer.send($0) } }
        let session = try makeClient().webSocketSession(Chat(), options: options())
        let leaving = scheduler.createObserver(String.self)
        let staying = scheduler.createObserver(String.self)
        let left = session.events.map(Self.describe).subscribe(leaving)
        let stays = session.events.map(Self.describe).subscribe(staying)
        scheduler.scheduleAt(5) { left.dispose() }
        scheduler.scheduleAt(6) { session.send(.text("still here")) }
        scheduler.scheduleAt(10) { session.close() }
        scheduler.start()
        stays.dispose()

        XCTAssertEqual(leaving.events, [.next(0, "opened")])
        XCTAssertEqual(
            staying.events, [.next(0, "opened"), .next(6, "text still here"), .next(10, "closed 1000"), .completed(10)])
        XCTAssertEqual(peers.value.count, 1, "one connection for both")
    }

    // MARK: Ending

    func testClosingWhileReconnecting_stopsTheReconnect_failsKeptSends_andCompletes() throws {
        let peers = recordPeers { peer, _ in peer.after(10) { peer.drop() } }
        let session = try makeClient().webSocketSession(Chat(), options: options(reconnectDelay: 5))
        let events = scheduler.createObserver(String.self)
        let subscription = session.events.map(Self.describe).subscribe(events)
        let outcomes = SpecLocked<[String]>([])
        scheduler.scheduleAt(11) {
            self.record(session.send(.text("kept")), "kept", into: outcomes)
            session.close()
        }
        scheduler.start()
        subscription.dispose()

        XCTAssertEqual(
            events.events,
            [.next(0, "opened"), .next(10, "closed 1006"), .next(10, "reconnecting 1 after 5.0"), .completed(11)])
        XCTAssertEqual(peers.value.count, 1, "no reconnect after the close")
        XCTAssertEqual(outcomes.value, ["11 kept failed: \(LeashError.webSocketSendFailed(.closed))"])
        XCTAssertEqual(session.state, .ended(failure: nil))
    }

    func testReleasingTheSession_closesItsConnectionWith1000() throws {
        let peers = recordPeers()
        var session: WebSocketSession? = try makeClient().webSocketSession(Chat(), options: options())
        let events = scheduler.createObserver(String.self)
        let subscription = session?.events.map(Self.describe).subscribe(events)
        scheduler.scheduleAt(5) { session = nil }
        scheduler.start()
        subscription?.dispose()

        XCTAssertEqual(events.events, [.next(0, "opened"), .next(5, "closed 1000"), .completed(5)])
        XCTAssertEqual(peers.value.first?.clientClose?.code, .normalClosure)
    }

    func testCancelAll_endsTheSessionWithCancelled_forEverySubscriber() throws {
        _ = recordPeers()
        let client = try makeClient()
        let session = client.webSocketSession(Chat(), options: options())
        let events = scheduler.createObserver(String.self)
        let subscription = session.events.map(Self.describe).subscribe(events)
        scheduler.scheduleAt(5) { client.manager.cancelAll() }
        scheduler.start()
        subscription.dispose()

        XCTAssertEqual(events.events.first, .next(0, "opened"))
        XCTAssertEqual(events.events.count, 2)
        guard case .ended(let failure?) = session.state, case .cancelled? = failure as? LeashError else {
            return XCTFail("expected cancelled, got \(session.state)")
        }
    }
}
