import Foundation

/// Writes client frames (RFC 6455 §5.2): every frame masked with a fresh random key.
///
/// ```swift
/// var encoder = WebSocketFrameEncoder()
/// let bytes = try encoder.encode(WebSocketFrame(opcode: .text, payload: Data("Hello".utf8)))
/// ```
package struct WebSocketFrameEncoder {
    /// A frame the protocol does not allow to be sent: the caller built it wrong.
    package enum EncodingError: Error, Hashable, Sendable {
        /// A control frame with more than 125 payload bytes (§5.5).
        case controlFramePayloadTooLong(Int)
        /// A control frame without FIN (§5.5: control frames are never fragmented).
        case fragmentedControlFrame
        /// An opcode that does not fit in four bits.
        case opcodeOutOfRange(UInt8)
    }

    /// The source of masking keys; the system's is cryptographically secure, as §10.3 asks.
    private var generator = SystemRandomNumberGenerator()

    /// An encoder drawing keys from the system's random number generator.
    package init() {}

    /// Encodes `frame` masked with a fresh key; the frame's own `maskingKey` is ignored, since
    /// reusing a key would let a script predict the bytes on the wire (§10.3).
    ///
    /// - Returns: The header and the masked payload, ready to write.
    /// - Throws: `EncodingError` when `frame` breaks the rules for control frames.
    package mutating func encode(_ frame: WebSocketFrame) throws(EncodingError) -> Data {
        try Self.encode(frame, maskingKey: .random(using: &generator))
    }

    /// Encodes `frame` masked with `maskingKey`: the deterministic core of `encode(_:)`, for
    /// known-answer tests such as the examples of RFC 6455 §5.7. Without a key the frame is
    /// written unmasked, as a server writes it (`StubTransport`'s scripted server).
    package static func encode(_ frame: WebSocketFrame, maskingKey: WebSocketFrame.MaskingKey?)
        throws(EncodingError) -> Data
    {
        let opcode = frame.opcode.rawValue
        guard opcode <= 0x0F else { throw .opcodeOutOfRange(opcode) }
        let length = frame.payload.count
        if frame.opcode.isControl {
            guard frame.fin else { throw .fragmentedControlFrame }
            guard length <= 125 else { throw .controlFramePayloadTooLong(length) }
        }

        var first = opcode
        if frame.fin { first |= 0x80 }
        if frame.rsv1 { first |= 0x40 }
        if frame.rsv2 { first |= 0x20 }
        if frame.rsv3 { first |= 0x10 }

        // The shortest length form: §5.2 says the minimal number of bytes MUST be used.
        let extendedLengthSize = length <= 125 ? 0 : length <= 0xFFFF ? 2 : 8
        var output = Data(capacity: 2 + extendedLengthSize + 4 + length)
        output.append(first)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch extendedLengthSize {
        case 0:
            output.append(maskBit | UInt8(length))
        case 2:
            output.append(maskBit | 126)
            output.append(UInt8(length >> 8))
            output.append(UInt8(length & 0xFF))
        default:
            output.append(maskBit | 127)
            let wide = UInt64(length)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8((wide >> UInt64(shift)) & 0xFF))
            }
        }
        guard let maskingKey else {
            output.append(frame.payload)
            return output
        }
        output.append(contentsOf: [maskingKey[0], maskingKey[1], maskingKey[2], maskingKey[3]])
        let payloadStart = output.count
        output.append(frame.payload)
        output.withUnsafeMutableBytes { buffer in
            maskingKey.apply(to: UnsafeMutableRawBufferPointer(rebasing: buffer[payloadStart...]))
        }
        return output
    }
}
