import Foundation

/// One frame of the WebSocket protocol (RFC 6455 §5.2), as decoded from or encoded to the wire.
///
/// The payload is always the application's bytes: the decoder unmasks before it hands a frame
/// out, and the encoder masks while it writes, so `payload` is never the masked form.
package struct WebSocketFrame: Hashable, Sendable {
    /// Whether this is the last fragment of its message (a control frame always has it).
    package var fin: Bool
    /// The first reserved bit; an extension such as permessage-deflate gives it a meaning.
    package var rsv1: Bool
    /// The second reserved bit; no registered extension uses it yet.
    package var rsv2: Bool
    /// The third reserved bit; no registered extension uses it yet.
    package var rsv3: Bool
    /// What the frame carries.
    package var opcode: Opcode
    /// The key the payload was (or is to be) masked with on the wire; `nil` for an unmasked frame.
    package var maskingKey: MaskingKey?
    /// The unmasked application bytes.
    package var payload: Data

    /// A frame from its fields; the reserved bits default to clear and the frame to final.
    package init(
        fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false, opcode: Opcode,
        maskingKey: MaskingKey? = nil, payload: Data = Data()
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payload = payload
    }
}

extension WebSocketFrame {
    /// The four-bit frame type (RFC 6455 §5.2, §11.8), keeping values the RFC reserves.
    package enum Opcode: Hashable, Sendable {
        /// `0x0`: a later fragment of a text or binary message.
        case continuation
        /// `0x1`: the first (or only) frame of a UTF-8 text message.
        case text
        /// `0x2`: the first (or only) frame of a binary message.
        case binary
        /// `0x8`: the closing handshake.
        case close
        /// `0x9`: a keep-alive or liveness probe the peer must answer.
        case ping
        /// `0xA`: the answer to a ping, or an unsolicited heartbeat.
        case pong
        /// A value the RFC reserves (`0x3`–`0x7`, `0xB`–`0xF`), or above four bits when built by hand.
        case unknown(UInt8)

        /// The opcode for a raw four-bit value.
        package init(rawValue: UInt8) {
            switch rawValue {
            case 0x0: self = .continuation
            case 0x1: self = .text
            case 0x2: self = .binary
            case 0x8: self = .close
            case 0x9: self = .ping
            case 0xA: self = .pong
            default: self = .unknown(rawValue)
            }
        }

        /// The value written in the low four bits of the first header byte.
        package var rawValue: UInt8 {
            switch self {
            case .continuation: return 0x0
            case .text: return 0x1
            case .binary: return 0x2
            case .close: return 0x8
            case .ping: return 0x9
            case .pong: return 0xA
            case .unknown(let value): return value
            }
        }

        /// Whether this is a control opcode: the RFC marks them by the high bit of the four
        /// (§5.5), so a reserved control value counts too.
        package var isControl: Bool { rawValue & 0x8 != 0 }
    }
}

extension WebSocketFrame {
    /// The 32-bit masking key of a client frame (RFC 6455 §5.3), in wire order.
    package struct MaskingKey: Hashable, Sendable {
        /// The four key bytes, `bytes.0` first on the wire.
        package var bytes: (UInt8, UInt8, UInt8, UInt8)

        /// A key from its four bytes in wire order.
        package init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
            bytes = (b0, b1, b2, b3)
        }

        /// A fresh key from `generator`; the RFC asks for an unpredictable key per frame so that
        /// a script cannot choose the bytes an intermediary sees.
        package static func random(using generator: inout some RandomNumberGenerator) -> MaskingKey {
            let value = UInt32.random(in: .min ... .max, using: &generator)
            return MaskingKey(
                UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
        }

        /// The key byte that applies at `index` of the payload.
        package subscript(index: Int) -> UInt8 {
            switch index & 3 {
            case 0: return bytes.0
            case 1: return bytes.1
            case 2: return bytes.2
            default: return bytes.3
            }
        }

        /// Masks (or, being an XOR, unmasks) `buffer`, whose first byte is payload byte 0.
        ///
        /// Eight bytes at a time: the key repeats every four bytes, so a 64-bit word holding it
        /// twice, laid out in memory order, lines up with every eight-byte step of the payload.
        package func apply(to buffer: UnsafeMutableRawBufferPointer) {
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { wordBytes in
                for index in 0..<8 { wordBytes[index] = self[index] }
            }
            var index = 0
            let wordCount = buffer.count / 8
            for _ in 0..<wordCount {
                let value = buffer.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                buffer.storeBytes(of: value ^ word, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < buffer.count {
                buffer[index] ^= self[index]
                index += 1
            }
        }

        /// Masks (or unmasks) all of `data` in place.
        package func apply(to data: inout Data) {
            data.withUnsafeMutableBytes { apply(to: $0) }
        }

        /// Compares the four bytes; tuples are not `Equatable` themselves.
        package static func == (lhs: MaskingKey, rhs: MaskingKey) -> Bool {
            lhs.bytes == rhs.bytes
        }

        /// Hashes the four bytes.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(bytes.0)
            hasher.combine(bytes.1)
            hasher.combine(bytes.2)
            hasher.combine(bytes.3)
        }
    }
}
