/// A WebSocket frame as it arrived from the client (RFC 6455 §5.2), payload unmasked.
///
/// The reader checks only what it needs to find the frame's end; the session checks the
/// rest (masking, RSV bits, opcodes, control frame rules) after logging the frame, so that
/// the log shows a faulty frame as it was sent.
struct WebSocketWireFrame {
    /// Whether this is the final fragment of its message.
    var fin: Bool
    /// The three RSV bits as a number: 4 is RSV1, 2 is RSV2, 1 is RSV3.
    var rsv: UInt8
    /// The opcode, 0…15.
    var opcode: UInt8
    /// The four-byte masking key, or nil when the frame was not masked.
    var maskingKey: [UInt8]?
    /// The payload, unmasked.
    var payload: [UInt8]
    /// Whether the payload length used the shortest encoding, as RFC 6455 §5.2 requires.
    var hasMinimalLength: Bool
}

/// Reads client frames off a connection's input buffer, one at a time.
enum WebSocketFrameReader {
    /// What `next(from:maxPayloadLength:)` found.
    enum Step {
        /// The buffer does not hold a whole frame yet.
        case needMore
        /// A whole frame, consumed from the buffer.
        case frame(WebSocketWireFrame)
        /// The frame cannot be read: the connection must fail with `code`.
        case failure(code: UInt16, reason: String)
    }

    /// Consumes the next whole frame from `buffer`, if there is one.
    ///
    /// A 64-bit length with its top bit set fails with 1002; a payload longer than
    /// `maxPayloadLength` fails with 1009 as soon as its header has arrived.
    static func next(from buffer: inout InputBuffer, maxPayloadLength: Int) -> Step {
        guard buffer.count >= 2 else { return .needMore }
        let first = buffer[0]
        let second = buffer[1]
        let isMasked = second & 0x80 != 0
        var headerLength = 2
        var length: UInt64
        let hasMinimalLength: Bool
        switch second & 0x7F {
        case 126:
            headerLength += 2
            guard buffer.count >= headerLength else { return .needMore }
            length = UInt64(buffer[2]) << 8 | UInt64(buffer[3])
            hasMinimalLength = length >= 126
        case 127:
            headerLength += 8
            guard buffer.count >= headerLength else { return .needMore }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[index]) }
            guard length >> 63 == 0 else {
                return .failure(code: 1002, reason: "64-bit payload length with the top bit set")
            }
            hasMinimalLength = length > 0xFFFF
        case let short:
            length = UInt64(short)
            hasMinimalLength = true
        }
        guard length <= UInt64(maxPayloadLength) else {
            return .failure(code: 1009, reason: "a frame of \(length) bytes, above \(maxPayloadLength)")
        }
        let payloadLength = Int(length)
        let keyOffset = headerLength
        if isMasked { headerLength += 4 }
        guard buffer.count >= headerLength + payloadLength else { return .needMore }
        let key = isMasked ? (0..<4).map { buffer[keyOffset + $0] } : nil
        buffer.skip(headerLength)
        var payload = Array(buffer.take(payloadLength))
        if let key { unmask(&payload, key: key) }
        return .frame(
            WebSocketWireFrame(
                fin: first & 0x80 != 0, rsv: (first >> 4) & 0x7, opcode: first & 0x0F, maskingKey: key,
                payload: payload, hasMinimalLength: hasMinimalLength))
    }

    /// XORs `bytes` with `key` repeated (masking and unmasking are the same operation).
    static func unmask(_ bytes: inout [UInt8], key: [UInt8]) {
        guard key.count == 4 else { return }
        let k0 = key[0]
        let k1 = key[1]
        let k2 = key[2]
        let k3 = key[3]
        bytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var index = 0
            let count = buffer.count
            while index + 4 <= count {
                base[index] ^= k0
                base[index + 1] ^= k1
                base[index + 2] ^= k2
                base[index + 3] ^= k3
                index += 4
            }
            while index < count {
                base[index] ^= key[index & 3]
                index += 1
            }
        }
    }
}
