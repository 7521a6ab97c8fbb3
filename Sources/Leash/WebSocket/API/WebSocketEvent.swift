import Foundation

/// What happens to a WebSocket, in order: `client.rx.webSocket(_:options:)`'s elements.
///
/// One connection reads `opened`, then its `message`s (and `pong`s, if it pings), then one
/// `closed`. With a reconnect policy, `reconnecting` follows a `closed` the policy retries,
/// and the next connection starts again at `opened`.
public enum WebSocketEvent: Equatable, Sendable {
    /// The handshake succeeded: `socket` sends and closes.
    case opened(WebSocket)
    /// A whole message arrived (text or binary, however many frames carried it).
    case message(WebSocketMessage)
    /// The server answered one of the keepalive pings (`WebSocketOptions.pingInterval`)
    /// after `roundTrip` seconds.
    case pong(roundTrip: TimeInterval)
    /// The connection ended: by the app, the server, or a failure (`WebSocketClose.failure`).
    case closed(WebSocketClose)
    /// The reconnect policy connects again after `delay` seconds; `attempt` counts the
    /// connects since the last stable connection (1 for the first).
    case reconnecting(attempt: Int, delay: TimeInterval)

    /// The message, for a `.message` event.
    public var message: WebSocketMessage? {
        if case .message(let message) = self { return message }
        return nil
    }

    /// The socket, for an `.opened` event.
    public var socket: WebSocket? {
        if case .opened(let socket) = self { return socket }
        return nil
    }

    /// How the connection ended, for a `.closed` event.
    public var close: WebSocketClose? {
        if case .closed(let close) = self { return close }
        return nil
    }
}
