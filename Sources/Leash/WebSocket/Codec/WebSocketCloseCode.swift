import Foundation

/// A WebSocket close status code (RFC 6455 §7.4; IANA "WebSocket Close Code Number Registry").
///
/// Constants are named after the RFC's and the registry's meanings. Some exist only for the
/// application's side (`noStatusReceived`, `abnormalClosure`, `tlsHandshake`): they say what
/// happened when no code arrived, and are invalid on the wire.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable {
    /// The two-byte code as sent on the wire.
    public let rawValue: UInt16

    /// A code from its numeric value.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (a server shutting down, a page navigated away).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the endpoint received something that breaks the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: the endpoint received a kind of data it cannot accept.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: no status code was present; never sent on the wire.
    public static let noStatusReceived = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection closed without a close frame; never sent on the wire.
    public static let abnormalClosure = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data did not match its type (non-UTF-8 text).
    public static let invalidFramePayloadData = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message was too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: the client expected the server to negotiate an extension it did not.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(rawValue: 1011)
    /// 1012: the service is restarting (IANA registry).
    public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
    /// 1013: the service is overloaded; try again later (IANA registry).
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)
    /// 1014: a gateway received an invalid response upstream (IANA registry).
    public static let badGateway = WebSocketCloseCode(rawValue: 1014)
    /// 1015: the TLS handshake failed; never sent on the wire.
    public static let tlsHandshake = WebSocketCloseCode(rawValue: 1015)

    /// Whether a peer may send this code in a close frame.
    ///
    /// 1000–1003 and 1007–1014 are defined for the wire (1012–1014 by the IANA registry, which
    /// Autobahn accepts); 1004 is reserved, and 1005, 1006 and 1015 are for the application
    /// only. Below 1000 is unused, 1016–2999 is reserved for future RFCs, 3000–3999 is
    /// registered by libraries and 4000–4999 is private use, both valid. 5000 and up is outside
    /// every range the RFC defines.
    public var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}

extension WebSocketCloseCode {
    /// Validates the payload of a received close frame (RFC 6455 §5.5.1, §7.4).
    ///
    /// - Parameter payload: The unmasked close frame payload.
    /// - Returns: `nil` for an empty payload (no code given), else the code and the reason.
    /// - Throws: `closePayloadTooShort` for a single byte, `invalidCloseCode` for a code that
    ///   may not be on the wire (both 1002), `invalidUTF8` for a reason that is not UTF-8 (1007).
    package static func validateClosePayload(_ payload: Data) throws(WebSocketProtocolViolation)
        -> (code: WebSocketCloseCode, reason: String)?
    {
        guard !payload.isEmpty else { return nil }
        guard payload.count >= 2 else { throw .closePayloadTooShort }
        let start = payload.startIndex
        let code = WebSocketCloseCode(rawValue: UInt16(payload[start]) << 8 | UInt16(payload[start + 1]))
        guard code.isValidOnTheWire else { throw .invalidCloseCode(code.rawValue) }
        let reason = payload.dropFirst(2)
        var validator = IncrementalUTF8Validator()
        if let offset = validator.validate(reason) { throw .invalidUTF8(atOffset: offset) }
        // A reason cut inside a sequence is invalid as well: the frame is the whole reason.
        guard validator.isAtCharacterBoundary else { throw .invalidUTF8(atOffset: reason.count) }
        return (code, String(decoding: reason, as: UTF8.self))
    }
}
