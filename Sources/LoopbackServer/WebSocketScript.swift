/// What a `/ws/echo` request asked the server to do (see `LoopbackServer.webSocketRoutes`):
/// the `101` answer, then what the server sends on its own before it echoes.
struct WebSocketScript: Sendable {
    /// A close frame the server sends right after opening.
    enum ScriptedClose: Sendable {
        /// A close frame with `code` (none when nil) and `reason`.
        case code(UInt16?, reason: [UInt8])
        /// A close frame with code 1000 and a reason that is not UTF-8.
        case invalidReason
    }

    /// The handshake request, for the log.
    var request: LoopbackServer.LoggedRequest
    /// The `Sec-WebSocket-Accept` value to send; nil sends none.
    var accept: String?
    /// The `Sec-WebSocket-Protocol` value to send, if any.
    var selectedProtocol: String?
    /// The `Sec-WebSocket-Extensions` value to send, if any.
    var extensions: String?

    /// Send a masked text frame (a server must not mask).
    var sendsMaskedFrame = false
    /// Send a text frame with these RSV bits (4 is RSV1, 2 is RSV2, 1 is RSV3).
    var reservedBits: UInt8?
    /// Send a frame with this opcode.
    var rawOpcode: UInt8?
    /// Send a text frame that is not UTF-8.
    var sendsInvalidUTF8 = false
    /// Send one message of this many bytes, as one frame (or `fragments` frames).
    var messageLength: Int?
    /// Send this many messages of `pushSize` bytes.
    var pushCount = 0
    /// The size of each pushed message.
    var pushSize = 16
    /// Whether pushed messages are binary (else text).
    var pushesBinary = false
    /// How many frames each pushed message is split into, with a ping between two.
    var fragments = 1
    /// Write this many bytes of binary messages as fast as the socket takes them.
    var floodBytes: Int?
    /// A close frame to send after the rest.
    var close: ScriptedClose?
    /// Close TCP right after the rest, without a close frame.
    var drops = false
    /// Send half a frame, then close TCP.
    var dropsMidFrame = false
    /// Never answer the client's close frame, never close TCP.
    var ignoresClose = false
    /// Never answer pings.
    var ignoresPings = false
    /// Send a ping every this many milliseconds.
    var pingInterval: Int?
}
