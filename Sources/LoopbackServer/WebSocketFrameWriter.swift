/// Builds the frames the server sends (RFC 6455 §5.2): unmasked, as a server's must be,
/// except where a script asks for a masked one to test the client.
enum WebSocketFrameWriter {
    /// Opcodes the server uses.
    static let continuation: UInt8 = 0x0
    static let text: UInt8 = 0x1
    static let binary: UInt8 = 0x2
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA

    /// A frame's header: FIN, the RSV bits (4 is RSV1, 2 is RSV2, 1 is RSV3), the opcode,
    /// the shortest length encoding, and the masking key if any.
    static func header(fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, length: Int, maskingKey: [UInt8]? = nil)
        -> [UInt8]
    {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 0x7) << 4 | (opcode & 0x0F)]
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(truncatingIfNeeded: length >> 8))
            bytes.append(UInt8(truncatingIfNeeded: length))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift)))
            }
        }
        if let maskingKey { bytes += maskingKey }
        return bytes
    }

    /// A whole frame carrying `payload` (masked with `maskingKey` when given).
    static func frame(
        fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, payload: [UInt8], maskingKey: [UInt8]? = nil
    ) -> [UInt8] {
        var body = payload
        if let maskingKey { WebSocketFrameReader.unmask(&body, key: maskingKey) }
        return header(fin: fin, rsv: rsv, opcode: opcode, length: payload.count, maskingKey: maskingKey) + body
    }

    /// A close frame's payload: nothing when `code` is nil, else the code (big-endian) and
    /// `reason`.
    static func closePayload(code: UInt16?, reason: [UInt8] = []) -> [UInt8] {
        guard let code else { return [] }
        return [UInt8(truncatingIfNeeded: code >> 8), UInt8(truncatingIfNeeded: code)] + reason
    }
}
