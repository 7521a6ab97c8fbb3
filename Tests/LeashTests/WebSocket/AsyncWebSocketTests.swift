import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `client.webSocket(_:)`: events as an `AsyncThrowingStream`, `send` that awaits the write,
/// a loop left early or a task cancelled closing the socket. Against `StubTransport`'s
/// scripted server on its own queue.
final class AsyncWebSocketTests: XCTestCase {
    private struct Chat: Endpoint {
        var path: String { "/chat" }
        var method: HTTPMethod { .get }
    }

    private func makeClient(_ transport: StubTransport) throws -> Client {
        Client(manager: try Manager.Builder().url("https://chat.example.com").transport(transport).build())
    }

    private var options: WebSocketOptions {
        var options = WebSocketOptions()
        options.pingInterval = nil
        return options
    }

    func testSend_waitsForTheSocketToOpen_andTheLoopSeesTheEchoesThenTheClose() async throws {
        let transport = StubTransport()
        transport.stubWebSocket(path: "/chat") { peer in
            peer.onMessage { message in
                peer.send(message)
                if peer.received.count == 2 { peer.close(code: .normalClosure, reason: "done") }
            }
        }
        let chat = try makeClient(transport).webSocket(Chat(), options: options)

        let loop = Task {
            var seen: [String] = []
            for try await event in chat.events {
                switch event {
                case .opened: seen.append("opened")
                case .message(.text(let text)): seen.append(text)
                case .closed(let close): seen.append("closed \(close.code.rawValue) \(close.reason)")
                default: seen.append("other")
                }
            }
            return seen
        }
        try await chat.send(.text("one"))
        try await chat.send(.text("two"))

        let seen = try await loop.value
        XCTAssertEqual(seen, ["opened", "one", "two", "closed 1000 done"])
        do {
            try await chat.send(.text("three"))
            XCTFail("a send after the end must fail")
        } catch LeashError.webSocketSendFailed(.closed) {
        }
    }

    func testCancellingTheLoopsTask_closesTheSocketWith1000() async throws {
        let transport = StubTransport()
        let closed = XCTestExpectation(description: "the client closed the connection")
        let peers = SpecLocked<[StubWebSocketPeer]>([])
        transport.stubWebSocket(path: "/chat") { peer in
            peers.withLock { $0.append(peer) }
            peer.onClientDisconnect { closed.fulfill() }
            peer.send(.text("hello"))
        }
        let chat = try makeClient(transport).webSocket(Chat(), options: options)
        let opened = XCTestExpectation(description: "the loop got a message")

        let loop = Task {
            for try await event in chat.events where event.message != nil { opened.fulfill() }
        }
        await fulfillment(of: [opened], timeout: 5)
        loop.cancel()
        _ = try? await loop.value

        await fulfillment(of: [closed], timeout: 5)
        XCTAssertEqual(peers.value.first?.clientClose?.code, .normalClosure, "the close handshake came first")
    }
}
