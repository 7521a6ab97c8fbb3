import Foundation

/// How a WebSocket connection ended, whoever ended it: the app (`close(code:reason:)`,
/// disposing), the server, or a failure (a dead peer, a cut connection, a protocol
/// violation).
public struct WebSocketClose: Equatable, Sendable, CustomStringConvertible {
    /// The close code the server sent, as RFC 6455 §7.1.5 defines "the connection close
    /// code": `noStatusReceived` (1005) for a close frame without one, `abnormalClosure`
    /// (1006) when no close frame arrived (the connection was cut, or the peer stopped
    /// answering). Application codes (3000–4999) arrive as they were sent.
    public var code: WebSocketCloseCode
    /// The reason the server gave with its code (may be empty).
    public var reason: String
    /// Whether the closing handshake completed: both sides sent a close frame before the
    /// connection closed (RFC 6455 §7.1.4's "cleanly").
    public var wasClean: Bool
    /// What went wrong on this side, when the close was not the peer's or the app's choice:
    /// `LeashError.webSocketProtocolViolation` (the server broke the protocol; Leash sent
    /// the matching close code), `.timeout` (no pong, or no answer to a close),
    /// `.transport` (the connection failed). `nil` for an orderly close.
    public var failure: LeashError?

    /// A close from its parts.
    public init(code: WebSocketCloseCode, reason: String = "", wasClean: Bool, failure: LeashError? = nil) {
        self.code = code
        self.reason = reason
        self.wasClean = wasClean
        self.failure = failure
    }

    /// Whether two closes say the same: code, reason, cleanness, and the same failure (by
    /// its description, since `LeashError` keeps underlying errors that are not equatable).
    public static func == (lhs: WebSocketClose, rhs: WebSocketClose) -> Bool {
        lhs.code == rhs.code && lhs.reason == rhs.reason && lhs.wasClean == rhs.wasClean
            && lhs.failure?.description == rhs.failure?.description
    }

    /// The code, the reason in quotes if there is one, whether it was clean, and the
    /// failure if any: `1006, not clean: …`.
    public var description: String {
        var text = "\(code.rawValue)"
        if !reason.isEmpty { text += " \"\(reason)\"" }
        text += wasClean ? ", clean" : ", not clean"
        if let failure { text += ": \(failure)" }
        return text
    }
}
