import Foundation

/// Why `WebSocket.send(_:)` could not queue a message (`LeashError.webSocketSendFailed`).
/// A message is never dropped silently: it is written, or its `send` fails saying why.
public enum WebSocketSendFailure: Equatable, Sendable, CustomStringConvertible {
    /// The socket is closing or closed: nothing more goes out. `close` is how it ended,
    /// once known.
    case closed
    /// The outgoing queue already holds `queuedBytes` unwritten bytes, and this message's
    /// `messageBytes` would take it past `limit` (`WebSocketOptions.maximumQueuedBytes`):
    /// the peer (or the network) is not keeping up.
    case queueFull(queuedBytes: Int, messageBytes: Int, limit: Int)
    /// A `WebSocketSession` kept the message while no connection was open, for `limit`
    /// seconds (`WebSocketOptions.sendTimeout`), and none opened: it was never written.
    case timedOut(limit: TimeInterval)

    /// Why the message could not be queued, in a sentence (for logs and error messages).
    public var description: String {
        switch self {
        case .closed:
            return "the socket is closing or closed"
        case .queueFull(let queued, let message, let limit):
            return
                "the outgoing queue holds \(queued) unwritten bytes, and \(message) more would pass its limit of \(limit) "
                + "(WebSocketOptions.maximumQueuedBytes)"
        case .timedOut(let limit):
            return
                "no connection opened within the \(limit) s a message may wait for one (WebSocketOptions.sendTimeout)"
        }
    }
}
