import Foundation
import LoopbackServer
import RxLeash
import RxTestingCore

extension Tour {
    /// WebSockets: a chat over the tour server's `/ws/echo`, whose first connection is cut
    /// and whose second one carries the conversation, reconnecting in between.
    func webSockets(_ client: Client) {
        step("WebSockets: a chat that reconnects after the server drops it", needsLocalServer: true) {
            say(
                """
                client.rx.webSocket(endpoint) connects when subscribed: the upgrade request goes
                through the pipeline like any request. The tour's server cuts the first connection
                (no close frame: 1006); the reconnect policy connects again after 100 ms, a whole
                new handshake. The second connection echoes, and the chat closes it with 1000,
                which the policy does not reconnect after.
                """)
            var options = WebSocketOptions()
            options.pingInterval = nil
            var reconnect = WebSocketReconnectPolicy()
            reconnect.initialDelay = 0.1
            reconnect.jitter = 0
            options.reconnect = reconnect
            let events = try client.rx.webSocket(TourChat(), options: options)
                .do(onNext: { event in
                    switch event {
                    case .opened(let socket):
                        TourChat.socket.value = socket
                        socket.send(.text("hello"))
                    case .message:
                        // The echo came back: say goodbye.
                        TourChat.socket.value?.close(code: .normalClosure, reason: "bye")
                    default: break
                    }
                })
                .toBlocking(timeout: 10).toArray()
            let lines = events.map(Self.describe)
            say(lines.joined(separator: "\n"))
            check(
                lines == [
                    "opened", "closed 1006 (cut)", "reconnecting in 0.1 s (attempt 1)", "opened", "message hello",
                    "closed 1000 (clean)",
                ], "cut, reconnected, echoed, closed cleanly")
            check(TourChat.connects.value == 2, "two handshakes through the pipeline")
        }
    }

    private static func describe(_ event: WebSocketEvent) -> String {
        switch event {
        case .opened: return "opened"
        case .message(.text(let text)): return "message \(text)"
        case .message(.binary(let data)): return "message \(data.count) bytes"
        case .pong: return "pong"
        case .closed(let close): return "closed \(close.code.rawValue) (\(close.wasClean ? "clean" : "cut"))"
        case .reconnecting(let attempt, let delay): return "reconnecting in \(delay) s (attempt \(attempt))"
        }
    }
}

/// The chat: `/ws/echo`, whose first connect asks the server to cut the connection at once.
private struct TourChat: Endpoint {
    /// How many times the request was built (one per handshake).
    static let connects = TourBox(0)
    /// The open socket, to close the chat with.
    static let socket = TourBox<WebSocket?>(nil)

    var path: String { "/ws/echo" }
    var method: HTTPMethod { .get }
    var parameters: Any? {
        var connect = 0
        Self.connects.mutate { count in
            count += 1
            connect = count
        }
        return connect == 1 ? ["drop": "1"] : nil
    }
}
