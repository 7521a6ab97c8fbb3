import Foundation

/// How a WebSocket connects, stays alive, and how much it holds
/// (`client.rx.webSocket(_:options:)`).
///
/// ```swift
/// var options = WebSocketOptions()
/// options.subprotocols = ["chat.v2"]
/// options.pingInterval = 15
/// options.reconnect = WebSocketReconnectPolicy()
/// client.rx.webSocket(Chat(), options: options)
/// ```
public struct WebSocketOptions: Sendable {
    /// The subprotocols offered (`Sec-WebSocket-Protocol`), in order of preference. The
    /// server's choice, which must be one of them, is `WebSocket.subprotocol`.
    public var subprotocols: [String] = []
    /// Seconds between keepalive pings; `nil`: no pings. Default 30 s, below the idle
    /// timeouts of common proxies and load balancers (60 s and up).
    public var pingInterval: TimeInterval? = 30
    /// Seconds a ping waits for a sign of life (any frame from the server counts, not only
    /// its pong) before the peer is taken for dead and the connection closed (1006, not
    /// clean, `LeashError.timeout`). Default 10 s.
    public var pongTimeout: TimeInterval = 10
    /// The largest incoming message, in bytes, over all its frames (after inflating, when
    /// compressed); a larger one closes the connection with 1009. Default 16 MiB.
    public var maximumMessageSize: Int = 16 * 1024 * 1024
    /// The most unwritten bytes the outgoing queue holds; a `send` that would pass it fails
    /// with `WebSocketSendFailure.queueFull` (never dropped silently). Default 32 MiB,
    /// room for a message of `maximumMessageSize` echoed while another waits.
    public var maximumQueuedBytes: Int = 32 * 1024 * 1024
    /// Seconds a message sent through a `WebSocketSession` while no connection is open may
    /// wait for one; past it, its send fails with `WebSocketSendFailure.timedOut` (it was
    /// never written). `nil`, the default: no limit, the message waits while the session
    /// connects and reconnects, and fails only if the session ends first.
    public var sendTimeout: TimeInterval?
    /// Whether to offer permessage-deflate (RFC 7692): messages are compressed both ways if
    /// the server agrees, with the window sizes and context takeover it chooses. Default true.
    public var offersCompression = true
    /// Seconds the closing handshake may take (the server's close frame and its TCP close)
    /// before the connection is cut. Default 5 s.
    public var closeTimeout: TimeInterval = 5
    /// Whether to connect again after the connection ends, and when; `nil`: never.
    public var reconnect: WebSocketReconnectPolicy?

    /// Opens the connections (tests put a scripted or counting one here); `nil`: the
    /// platform's (`WebSocketByteStreams.connector`).
    package var connector: (any WebSocketByteStreamConnector)?
    /// A PEM file of certificate authorities trusted besides the system's, for `wss` (tests
    /// with a self-signed certificate).
    package var trustedAuthorities: URL?

    /// The defaults above.
    public init() {}
}
