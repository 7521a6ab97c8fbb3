import Foundation
import Rx

/// An open WebSocket connection: what `.opened` hands over, to send messages and close.
///
/// Safe to use from any thread. Sends are eager: `send(_:)` queues the message at once,
/// whether or not its `Completable` is subscribed, and messages go out in the order their
/// `send` calls returned.
///
/// ```swift
/// client.rx.webSocket(Chat())
///     .subscribe(onNext: { event in
///         if case .opened(let socket) = event {
///             socket.send(.text("hello")).subscribe().disposed(by: bag)
///         }
///     })
/// ```
public final class WebSocket: Equatable, Sendable {
    let connection: WebSocketConnection

    /// The subprotocol the server chose among `WebSocketOptions.subprotocols`, if any.
    public let subprotocol: String?
    /// The extensions in use (the server's `Sec-WebSocket-Extensions`), if any:
    /// `permessage-deflate` and its parameters when messages are compressed.
    public let extensions: String?
    /// The headers of the server's `101 Switching Protocols`.
    public let handshakeHeaders: HTTPHeaders

    init(connection: WebSocketConnection, subprotocol: String?, extensions: String?, handshakeHeaders: HTTPHeaders) {
        self.connection = connection
        self.subprotocol = subprotocol
        self.extensions = extensions
        self.handshakeHeaders = handshakeHeaders
    }

    /// Queues `message` now, and returns its outcome: completes once the message is
    /// written to the connection, or fails with `LeashError.webSocketSendFailed` when it
    /// could not be queued (the socket is closing or closed, or the outgoing queue is full)
    /// or the connection ended before it was written. Subscribing is optional; subscribing
    /// late still tells the outcome.
    @discardableResult
    public func send(_ message: WebSocketMessage) -> Completable {
        let outcome = WebSocketSendOutcome()
        connection.send(message) { error in outcome.settle(error) }
        return outcome.completable
    }

    /// Starts the closing handshake with `code` and `reason` (at most 123 bytes of UTF-8;
    /// longer is cut at a character boundary): messages already queued go out first, later
    /// sends fail, and the observable reports `.closed` once the server answered and the
    /// connection closed (or `WebSocketOptions.closeTimeout` passed). A code that may not be
    /// sent (1005, 1006, 1015, or outside 1000–4999's valid ranges) is sent as 1000. Calling
    /// it again does nothing.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        connection.close(code: code, reason: reason)
    }

    /// The bytes queued and not yet written (messages, encoded and masked).
    public var queuedBytes: Int { connection.queuedBytes }

    /// The same connection (events compare their sockets by identity).
    public static func == (lhs: WebSocket, rhs: WebSocket) -> Bool {
        lhs === rhs
    }
}
