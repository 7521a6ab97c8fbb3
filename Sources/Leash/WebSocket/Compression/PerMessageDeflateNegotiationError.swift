/// Why a server's `Sec-WebSocket-Extensions` response fails the opening handshake (RFC 6455
/// §4.1, RFC 7692 §7.1); `description` is the reason to report.
package enum PerMessageDeflateNegotiationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The header does not follow the grammar of RFC 6455 §9.1; the reason says where.
    case malformedHeader(String)
    /// An extension the client did not offer (RFC 6455 §9.1: the server may only choose
    /// among the offered ones).
    case unexpectedExtension(String)
    /// permessage-deflate accepted more than once.
    case repeatedExtension
    /// A parameter RFC 7692 does not define for a response (§7.1, a).
    case unknownParameter(String)
    /// A parameter given twice (§7.1, c).
    case repeatedParameter(String)
    /// A parameter with a value it must not have: a window size that is not 8...15 written
    /// plainly, a value on a flag, or none where one is needed (§7.1, b).
    case invalidParameterValue(name: String, value: String?)
    /// `client_max_window_bits` in the response though the offer did not have it (§7.1.2.2).
    case clientMaxWindowBitsNotOffered
    /// No `server_max_window_bits` in the response though the offer limited it (§7.1.2.1).
    case serverMaxWindowBitsMissing(offered: Int)
    /// A `server_max_window_bits` above the offered limit (§7.1.2.1).
    case serverMaxWindowBitsAboveOffer(offered: Int, received: Int)
    /// No `server_no_context_takeover` in the response though the offer asked for it (§7.1.1.1).
    case serverNoContextTakeoverMissing

    /// The reason, worded for a handshake failure.
    package var description: String {
        switch self {
        case .malformedHeader(let reason):
            return reason
        case .unexpectedExtension(let name):
            return "the server accepted extension \"\(name)\", which was not offered"
        case .repeatedExtension:
            return "the server accepted permessage-deflate more than once"
        case .unknownParameter(let name):
            return "permessage-deflate response has unknown parameter \"\(name)\""
        case .repeatedParameter(let name):
            return "permessage-deflate response repeats parameter \"\(name)\""
        case .invalidParameterValue(let name, let value?):
            return "permessage-deflate response has invalid value \"\(value)\" for \"\(name)\""
        case .invalidParameterValue(let name, nil):
            return "permessage-deflate response has no value for \"\(name)\", which needs one"
        case .clientMaxWindowBitsNotOffered:
            return "permessage-deflate response sets client_max_window_bits, which was not offered"
        case .serverMaxWindowBitsMissing(let offered):
            return "permessage-deflate response lacks server_max_window_bits (offered \(offered))"
        case .serverMaxWindowBitsAboveOffer(let offered, let received):
            return "permessage-deflate response sets server_max_window_bits=\(received), above the offered \(offered)"
        case .serverNoContextTakeoverMissing:
            return "permessage-deflate response lacks server_no_context_takeover, which was offered"
        }
    }
}
