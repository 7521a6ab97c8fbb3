/// Why a received frame or message fails the WebSocket connection (RFC 6455 §7.1.7), with the
/// status code the close frame sent in answer must carry.
package enum WebSocketProtocolViolation: Error, Hashable, Sendable {
    /// A reserved bit (the mask of `0x70` in the first header byte) that no negotiated
    /// extension defines (§5.2), or RSV1 on a frame where permessage-deflate does not define
    /// it: a control frame or a continuation (RFC 7692 §6.1).
    case reservedBitsSet(UInt8)
    /// An opcode the RFC reserves (§5.2: "MUST _Fail the WebSocket Connection_").
    case unknownOpcode(UInt8)
    /// A masked frame received by a client (§5.1: a server never masks).
    case maskedFrameFromServer
    /// An unmasked frame received by a server (§5.1: a client always masks).
    case unmaskedFrameFromClient
    /// A control frame without FIN (§5.5: control frames are never fragmented).
    case fragmentedControlFrame
    /// A control frame whose payload is over 125 bytes (§5.5).
    case controlFrameTooLong(UInt64)
    /// A 64-bit payload length with its most significant bit set (§5.2).
    case payloadLengthMostSignificantBitSet
    /// A frame whose payload is over the configured maximum.
    case frameTooLarge(UInt64)
    /// A message whose fragments add up to more than the configured maximum.
    case messageTooLarge(Int)
    /// A continuation frame with no text or binary message open (§5.4).
    case continuationWithoutStart
    /// A text or binary frame while a fragmented message is still open (§5.4).
    case dataFrameWhileMessageOpen
    /// A text message (or a close reason) that is not UTF-8; the offset is of the byte at which
    /// that became certain, counted from the message's (or reason's) start.
    case invalidUTF8(atOffset: Int)
    /// A close frame whose payload is one byte: too short for a status code (§5.5.1).
    case closePayloadTooShort
    /// A close frame with a status code that may not be sent on the wire (§7.4).
    case invalidCloseCode(UInt16)
    /// A compressed message (RFC 7692) whose payload is not valid DEFLATE data.
    case invalidCompressedData

    /// The status code to close with (§7.4.1): 1007 for bad text or compressed data, 1009 for
    /// size limits, and 1002 for everything else, which breaks the framing rules.
    package var closeCode: WebSocketCloseCode {
        switch self {
        // Undecodable DEFLATE data is a payload that does not match its message type, like bad
        // UTF-8: the framing was right, the content was not.
        case .invalidUTF8, .invalidCompressedData: return .invalidFramePayloadData
        case .frameTooLarge, .messageTooLarge: return .messageTooBig
        case .reservedBitsSet, .unknownOpcode, .maskedFrameFromServer, .unmaskedFrameFromClient,
            .fragmentedControlFrame, .controlFrameTooLong, .payloadLengthMostSignificantBitSet,
            .continuationWithoutStart, .dataFrameWhileMessageOpen, .closePayloadTooShort, .invalidCloseCode:
            return .protocolError
        }
    }
}
