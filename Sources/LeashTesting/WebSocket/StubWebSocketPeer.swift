import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's side of one scripted WebSocket conversation (`StubTransport.stubWebSocket`):
/// what the script sends, when, and what it heard from the client.
///
/// With the transport's scheduler a `TestScheduler`, everything happens in virtual time:
/// `after(_:_:)` waits virtually, and the client's events arrive as the test advances the
/// clock.
///
/// ```swift
/// transport.stubWebSocket(path: "/chat") { peer in
///     peer.send(.text("welcome"))
///     peer.onMessage { message in peer.send(message) }   // an echo
///     peer.after(30) { peer.close(code: .goingAway) }
/// }
/// ```
public final class StubWebSocketPeer: Sendable {
    private struct State {
        var received: [WebSocketMessage] = []
        var onMessage: (@Sendable (WebSocketMessage) -> Void)?
        var clientClose: (code: WebSocketCloseCode?, reason: String)?
        var clientClosedConnection = false
        var onDisconnect: (@Sendable () -> Void)?
        var answersPings = true
        var answersClose = true
    }

    private let connection: StubWebSocketServerConnection
    private let state = LockedState(State())
    /// The upgrade request as it arrived (its headers show the token it carried).
    public let request: URLRequest

    init(connection: StubWebSocketServerConnection, request: URLRequest) {
        self.connection = connection
        self.request = request
    }

    /// Sends `message` to the client now.
    public func send(_ message: WebSocketMessage) {
        switch message {
        case .text(let text): connection.write(.text, Data(text.utf8))
        case .binary(let data): connection.write(.binary, data)
        }
    }

    /// Writes `bytes` to the client as they are, frames or not (Leash's own tests play a
    /// broken server with it).
    package func sendRaw(_ bytes: Data) {
        connection.writeRaw(bytes)
    }

    /// Runs `action` after `seconds` (virtual time on a `TestScheduler`).
    public func after(_ seconds: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        connection.runner.after(seconds, action)
    }

    /// Calls `handler` with each message the client sends, in order.
    public func onMessage(_ handler: @escaping @Sendable (WebSocketMessage) -> Void) {
        state.withLock { $0.onMessage = handler }
    }

    /// Calls `handler` once the client closed the connection (after its close frame, or
    /// without one).
    public func onClientDisconnect(_ handler: @escaping @Sendable () -> Void) {
        let already = state.withLock { state -> Bool in
            state.onDisconnect = handler
            return state.clientClosedConnection
        }
        if already { handler() }
    }

    /// Starts the closing handshake with `code` (`nil`: a close frame without one) and
    /// `reason`; the connection closes once the client answers.
    public func close(code: WebSocketCloseCode? = .normalClosure, reason: String = "") {
        connection.close(code: code, reason: reason)
    }

    /// Cuts the connection without a close frame (the client sees 1006).
    public func drop() {
        connection.closeConnection()
    }

    /// Sends a ping with `payload`.
    public func ping(_ payload: Data = Data()) {
        connection.write(.ping, payload)
    }

    /// Whether the server answers the client's pings (default true); false plays a dead
    /// peer whose connection stays open.
    public var answersPings: Bool {
        get { state.withLock { $0.answersPings } }
        set { state.withLock { $0.answersPings = newValue } }
    }

    /// Whether the server answers the client's close (default true); false plays a server
    /// that never does, so that the client's close timer ends the connection.
    public var answersClose: Bool {
        get { state.withLock { $0.answersClose } }
        set { state.withLock { $0.answersClose = newValue } }
    }

    /// The messages the client sent, in order.
    public var received: [WebSocketMessage] { state.withLock { $0.received } }

    /// The close the client sent, if it did: its code (`nil` for none) and reason.
    public var clientClose: (code: WebSocketCloseCode?, reason: String)? { state.withLock { $0.clientClose } }

    /// Whether the client closed the connection.
    public var clientClosedConnection: Bool { state.withLock { $0.clientClosedConnection } }

    func received(_ message: WebSocketMessage) {
        let handler = state.withLock { state in
            state.received.append(message)
            return state.onMessage
        }
        handler?(message)
    }

    func recordClientClose(code: WebSocketCloseCode?, reason: String) {
        state.withLock { $0.clientClose = (code, reason) }
    }

    func recordClientClosedConnection() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            state.clientClosedConnection = true
            defer { state.onDisconnect = nil }
            return state.onDisconnect
        }
        handler?()
    }
}
