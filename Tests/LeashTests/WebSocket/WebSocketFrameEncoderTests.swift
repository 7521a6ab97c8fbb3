import Foundation
import Leash
import XCTest

/// The client frame encoder: header layout, masking, length forms and the control frame rules.
final class WebSocketFrameEncoderTests: XCTestCase {
    /// RFC 6455 §5.7's example: "Hello" masked with `37 fa 21 3d`.
    func testEncode_matchesTheRFCMaskedHelloExample() throws {
        let frame = WebSocketFrame(opcode: .text, payload: Data("Hello".utf8))
        let bytes = try WebSocketFrameEncoder.encode(frame, maskingKey: .init(0x37, 0xFA, 0x21, 0x3D))
        XCTAssertEqual([UInt8](bytes), [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    /// Each length class uses the minimal form, and decodes back to the same payload.
    func testEncode_roundTripsEveryLengthClass() throws {
        let expectations: [(length: Int, secondByteLength: UInt8, headerLength: Int)] = [
            (0, 0, 6), (125, 125, 6), (126, 126, 8), (65535, 126, 8), (65536, 127, 14),
        ]
        var encoder = WebSocketFrameEncoder()
        for (length, secondByteLength, headerLength) in expectations {
            let payload = Data(patternedPayload(count: length))
            let bytes = try encoder.encode(WebSocketFrame(opcode: .binary, payload: payload))
            XCTAssertEqual(bytes.count, headerLength + length, "length \(length)")
            XCTAssertEqual(bytes[bytes.startIndex + 1], 0x80 | secondByteLength, "length \(length)")

            var decoder = WebSocketFrameDecoder(role: .server)
            let output = decoder.decode(bytes)
            XCTAssertNil(output.violation, "length \(length)")
            XCTAssertEqual(output.frames.count, 1, "length \(length)")
            XCTAssertEqual(output.frames.first?.payload, payload, "length \(length)")
            XCTAssertEqual(output.frames.first?.opcode, .binary, "length \(length)")
            XCTAssertEqual(output.frames.first?.fin, true, "length \(length)")
        }
    }

    /// The extended lengths are big-endian.
    func testEncode_writesExtendedLengthsBigEndian() throws {
        let key = WebSocketFrame.MaskingKey(1, 2, 3, 4)
        let medium = try WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: .binary, payload: Data(count: 0x1234)), maskingKey: key)
        XCTAssertEqual([UInt8](medium.prefix(4)), [0x82, 0xFE, 0x12, 0x34])
        let large = try WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: .binary, payload: Data(count: 0x01_0203)), maskingKey: key)
        XCTAssertEqual([UInt8](large.prefix(10)), [0x82, 0xFF, 0, 0, 0, 0, 0, 0x01, 0x02, 0x03])
    }

    /// FIN, the reserved bits and the opcode land in the first byte.
    func testEncode_writesFinReservedBitsAndOpcode() throws {
        let frame = WebSocketFrame(fin: false, rsv1: true, rsv2: false, rsv3: true, opcode: .continuation)
        let bytes = try WebSocketFrameEncoder.encode(frame, maskingKey: .init(0, 0, 0, 0))
        XCTAssertEqual(bytes.first, 0x50)
    }

    /// Every frame is masked, with a key of its own.
    func testEncode_masksEveryFrameWithAFreshKey() throws {
        var encoder = WebSocketFrameEncoder()
        let payload = Data(repeating: 0, count: 16)
        var keys = Set<WebSocketFrame.MaskingKey>()
        for _ in 0..<64 {
            let bytes = try encoder.encode(WebSocketFrame(opcode: .binary, payload: payload))
            XCTAssertEqual(bytes[bytes.startIndex + 1] & 0x80, 0x80, "mask bit")
            let key = [UInt8](bytes[(bytes.startIndex + 2)..<(bytes.startIndex + 6)])
            // A zero payload masked is the key repeated: the payload on the wire is masked.
            XCTAssertEqual([UInt8](bytes.suffix(16)), key + key + key + key)
            keys.insert(WebSocketFrame.MaskingKey(key[0], key[1], key[2], key[3]))
        }
        // 64 draws of 32 random bits collide with odds near 1 in 2^21; a reused key cannot pass.
        XCTAssertEqual(keys.count, 64)
    }

    /// The eight-byte masking path and its tail agree with masking byte by byte, at every length
    /// around a word boundary.
    func testMaskingKey_matchesBytewiseMaskingAtEveryTailLength() {
        let key = WebSocketFrame.MaskingKey(0xA1, 0xB2, 0xC3, 0xD4)
        let keyBytes: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
        for length in 0...33 {
            let plain = patternedPayload(count: length)
            var masked = Data(plain)
            key.apply(to: &masked)
            XCTAssertEqual([UInt8](masked), plain.enumerated().map { $0.element ^ keyBytes[$0.offset % 4] })
            key.apply(to: &masked)
            XCTAssertEqual([UInt8](masked), plain, "masking twice restores, length \(length)")
        }
    }

    /// A control frame over 125 bytes is the caller's mistake: a thrown error, not a crash.
    func testEncode_rejectsAControlFrameOver125Bytes() {
        var encoder = WebSocketFrameEncoder()
        for opcode in [WebSocketFrame.Opcode.ping, .pong, .close] {
            XCTAssertThrowsError(try encoder.encode(WebSocketFrame(opcode: opcode, payload: Data(count: 126)))) {
                XCTAssertEqual($0 as? WebSocketFrameEncoder.EncodingError, .controlFramePayloadTooLong(126))
            }
        }
        XCTAssertNoThrow(try encoder.encode(WebSocketFrame(opcode: .ping, payload: Data(count: 125))))
    }

    /// A control frame must not be fragmented.
    func testEncode_rejectsAFragmentedControlFrame() {
        var encoder = WebSocketFrameEncoder()
        XCTAssertThrowsError(try encoder.encode(WebSocketFrame(fin: false, opcode: .ping))) {
            XCTAssertEqual($0 as? WebSocketFrameEncoder.EncodingError, .fragmentedControlFrame)
        }
    }

    /// An opcode wider than four bits would spill into the reserved bits.
    func testEncode_rejectsAnOpcodeWiderThanFourBits() {
        var encoder = WebSocketFrameEncoder()
        XCTAssertThrowsError(try encoder.encode(WebSocketFrame(opcode: .unknown(0x13)))) {
            XCTAssertEqual($0 as? WebSocketFrameEncoder.EncodingError, .opcodeOutOfRange(0x13))
        }
    }
}
