// The README's "WebSockets" snippets, compiled and run against `StubTransport`'s scripted
// server. `ChatRoom` stands for the app's endpoint; `print` is this file's own, which records
// what the snippets print.

import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

private struct ChatRoom: Endpoint {
    let name: String
    var path: String { "/chat/\(name)" }
    var method: HTTPMethod { .get }
}

/// What the snippets printed.
private let printed = SpecLocked<[String]>([])

/// Records instead of printing.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    printed.withLock { $0.append(items.map { "\($0)" }.joined(separator: separator)) }
}

final class WebSocketReadmeSnippetsTests: XCTestCase {
    private let disposeBag = DisposeBag()

    override func setUp() {
        super.setUp()
        printed.withLock { $0.removeAll() }
    }

    /// A server that echoes, then closes normally after the first message.
    private func makeClient() throws -> Client {
        let transport = StubTransport()
        transport.stubWebSocket(path: "/chat/general") { peer in
            peer.onMessage { message in
                peer.send(message)
                peer.close(code: .normalClosure)
            }
        }
        return Client(manager: try Manager.Builder().url("https://chat.example.com").transport(transport).build())
    }

    func testTheRxSnippet() throws {
        let client = try makeClient()

        // README:
        // The cold stream: say hello once open, print what arrives, and connect again after a drop.
        var options = WebSocketOptions()
        options.reconnect = WebSocketReconnectPolicy()
        client.rx.webSocket(ChatRoom(name: "general"), options: options)
            .subscribe(onNext: { event in
                switch event {
                case .opened(let socket): socket.send(.text("hello"))
                case .message(.text(let text)): print(text)
                case .closed(let close): print("closed", close.code.rawValue, close.wasClean)
                default: break
                }
            })
            .disposed(by: disposeBag)
        // README end

        // The close comes once the echo was printed; wait for both lines.
        let deadline = Date(timeIntervalSinceNow: 10)
        while printed.value.count < 2 && Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
        }
        XCTAssertEqual(printed.value, ["hello", "closed 1000 true"])
    }

    func testTheSessionSnippet() throws {
        let client = try makeClient()

        // README:
        // A chat session: made at once, connected from now on, reconnected after a drop.
        var options = WebSocketOptions()
        options.reconnect = WebSocketReconnectPolicy()
        let session = client.webSocketSession(ChatRoom(name: "general"), options: options)
        session.events
            .subscribe(onNext: { event in
                switch event {
                case .message(.text(let text)): print(text)
                case .closed(let close): print("closed", close.code.rawValue, close.wasClean)
                default: break
                }
            })
            .disposed(by: disposeBag)
        session.send(.text("hello"))  // kept until the connection opens, then written
        // README end

        // The close comes once the echo was printed; wait for both lines.
        let deadline = Date(timeIntervalSinceNow: 10)
        while printed.value.count < 2 && Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
        }
        XCTAssertEqual(printed.value, ["hello", "closed 1000 true"])
        XCTAssertEqual(session.state, .ended(failure: nil), "a normal close is not reconnected after")
    }

    func testTheSessionsAsyncSnippet() async throws {
        let client = try makeClient()

        // README:
        // async/await: the same session's events as an AsyncSequence; `send` waits for the write.
        let session = client.webSocketSession(ChatRoom(name: "general"))
        let events = session.events.values  // subscribes now: nothing arriving from here on is missed
        try await session.send(.text("hello")).value
        for try await event in events {
            if case .message(.text(let text)) = event { print(text) }
        }
        // README end

        XCTAssertEqual(printed.value, ["hello"])
    }

    func testTheAsyncSnippet() async throws {
        let client = try makeClient()

        // README:
        // async/await: the loop pulls; leaving it (or cancelling its task) closes the socket.
        let chat = client.webSocket(ChatRoom(name: "general"))
        let loop = Task {
            for try await event in chat.events {
                if case .message(.text(let text)) = event { print(text) }
            }
        }
        try await chat.send(.text("hello"))  // waits for the socket to open, then for the write
        // README end

        try await loop.value
        XCTAssertEqual(printed.value, ["hello"])
    }

    func testTheVirtualTimeSnippet() throws {
        let scheduler = TestScheduler(initialClock: 0)

        // README:
        let transport = StubTransport(scheduler: scheduler)
        transport.stubWebSocket(path: "/chat/general") { peer in
            peer.send(.text("welcome"))
            peer.onMessage { message in peer.send(message) }  // an echo
            peer.after(30) { peer.drop() }  // then the connection is cut
        }
        // README end

        let client = Client(
            manager: try Manager.Builder().url("https://chat.example.com").transport(transport).scheduler(scheduler)
                .build())
        var options = WebSocketOptions()
        options.pingInterval = nil
        let events = scheduler.start {
            client.rx.webSocket(ChatRoom(name: "general"), options: options)
                .do(onNext: { if case .opened(let socket) = $0 { socket.send(.text("hi")) } })
                .map { event -> String in
                    switch event {
                    case .message(.text(let text)): return text
                    case .closed(let close): return "closed \(close.code.rawValue)"
                    default: return "\(event)".components(separatedBy: "(").first ?? ""
                    }
                }
        }

        XCTAssertEqual(
            events.events,
            [.next(200, "opened"), .next(200, "welcome"), .next(200, "hi"), .next(230, "closed 1006"), .completed(230)])
    }
}
