import Foundation
import Leash
import XCTest

/// The incremental frame decoder: chunking at any boundary, and every violation with its code.
final class WebSocketFrameDecoderTests: XCTestCase {
    /// A stream of server frames of every length class, with control frames among them.
    private func sampleStream() -> (bytes: [UInt8], frames: [WebSocketFrame]) {
        let specs: [(firstByte: UInt8, opcode: WebSocketFrame.Opcode, fin: Bool, count: Int)] = [
            (0x81, .text, true, 0), (0x02, .binary, false, 125), (0x89, .ping, true, 3),
            (0x00, .continuation, false, 126),
            (0x8A, .pong, true, 0), (0x80, .continuation, true, 65535), (0x82, .binary, true, 65536),
            (0x88, .close, true, 2),
        ]
        var bytes: [UInt8] = []
        var frames: [WebSocketFrame] = []
        for spec in specs {
            let payload = patternedPayload(count: spec.count)
            bytes += handWrittenFrame(firstByte: spec.firstByte, payload: payload)
            frames.append(WebSocketFrame(fin: spec.fin, opcode: spec.opcode, payload: Data(payload)))
        }
        return (bytes, frames)
    }

    /// Several frames in one chunk all come out, in order.
    func testDecode_yieldsEveryFrameOfOneChunk() {
        let (bytes, frames) = sampleStream()
        var decoder = WebSocketFrameDecoder()
        let output = decoder.decode(bytes)
        XCTAssertNil(output.violation)
        XCTAssertEqual(output.frames, frames)
    }

    /// Fed one byte at a time, the decoder yields each frame exactly when its last byte arrives.
    func testDecode_oneByteAtATime() {
        let (bytes, frames) = sampleStream()
        var decoder = WebSocketFrameDecoder()
        var decoded: [WebSocketFrame] = []
        var completionOffsets: [Int] = []
        for (offset, byte) in bytes.enumerated() {
            let output = decoder.decode(CollectionOfOne(byte))
            XCTAssertNil(output.violation)
            XCTAssertLessThanOrEqual(output.frames.count, 1)
            if !output.frames.isEmpty { completionOffsets.append(offset + 1) }
            decoded += output.frames
        }
        XCTAssertEqual(decoded, frames)
        XCTAssertEqual(completionOffsets.last, bytes.count)
        XCTAssertEqual(completionOffsets.first, 2, "the empty text frame is complete after its header")
    }

    /// Random splits, seeded so that a failure repeats, decode to the same frames.
    func testDecode_randomSplits() {
        let (bytes, frames) = sampleStream()
        var generator = WebSocketSeededGenerator(seed: 6455)
        for round in 0..<200 {
            let cutCount = Int.random(in: 1...40, using: &generator)
            let cuts = (0..<cutCount).map { _ in Int.random(in: 0...bytes.count, using: &generator) }.sorted()
            var decoder = WebSocketFrameDecoder()
            let output = decoder.decode(bytes, cutAt: cuts)
            XCTAssertNil(output.violation, "round \(round)")
            XCTAssertEqual(output.frames, frames, "round \(round), cuts \(cuts)")
        }
    }

    /// A server role decoder unmasks client frames, split anywhere.
    func testDecode_unmasksClientFramesAsAServer() throws {
        var encoder = WebSocketFrameEncoder()
        let payloads = [0, 1, 7, 8, 9, 300, 70_000].map { Data(patternedPayload(count: $0)) }
        var bytes: [UInt8] = []
        for payload in payloads { bytes += try encoder.encode(WebSocketFrame(opcode: .binary, payload: payload)) }
        var generator = WebSocketSeededGenerator(seed: 17)
        let cuts = (0..<25).map { _ in Int.random(in: 0...bytes.count, using: &generator) }.sorted()
        var decoder = WebSocketFrameDecoder(role: .server)
        let output = decoder.decode(bytes, cutAt: cuts)
        XCTAssertNil(output.violation)
        XCTAssertEqual(output.frames.map(\.payload), payloads)
        XCTAssertTrue(output.frames.allSatisfy { $0.maskingKey != nil })
    }

    /// §5.2 asks senders for the minimal length form, not receivers to enforce it.
    func testDecode_acceptsNonMinimalLengthEncodings() {
        let payload = patternedPayload(count: 5)
        var decoder = WebSocketFrameDecoder()
        let output = decoder.decode(
            handWrittenFrame(firstByte: 0x82, payload: payload, lengthForm: 2)
                + handWrittenFrame(firstByte: 0x82, payload: payload, lengthForm: 8)
                + handWrittenFrame(firstByte: 0x89, payload: payload, lengthForm: 8))
        XCTAssertNil(output.violation)
        XCTAssertEqual(output.frames.map(\.payload), Array(repeating: Data(payload), count: 3))
    }

    /// Frames before a violation in the same chunk are still delivered; nothing after it is.
    func testDecode_deliversFramesBeforeAViolationAndFailsForGood() {
        var decoder = WebSocketFrameDecoder()
        let good = handWrittenFrame(firstByte: 0x81, payload: Array("ok".utf8))
        let output = decoder.decode(good + [0xC1, 0x00] + good)
        XCTAssertEqual(output.frames.map(\.payload), [Data("ok".utf8)])
        XCTAssertEqual(output.violation, .reservedBitsSet(0x40))
        let later = decoder.decode(good)
        XCTAssertEqual(later.frames, [])
        XCTAssertEqual(later.violation, .reservedBitsSet(0x40))
    }

    /// Asserts that `bytes` fail the decoder with `violation` and its close code `code`.
    private func assertViolation(
        _ bytes: [UInt8], _ violation: WebSocketProtocolViolation, code: UInt16,
        decoder: WebSocketFrameDecoder = WebSocketFrameDecoder(), file: StaticString = #filePath, line: UInt = #line
    ) {
        var decoder = decoder
        let output = decoder.decode(bytes)
        XCTAssertEqual(output.frames, [], file: file, line: line)
        XCTAssertEqual(output.violation, violation, file: file, line: line)
        XCTAssertEqual(output.violation?.closeCode.rawValue, code, file: file, line: line)
    }

    /// Each reserved bit, set without an extension, fails with 1002, on the first byte alone.
    func testDecode_rejectsReservedBitsWithoutAnExtension() {
        for bit: UInt8 in [0x40, 0x20, 0x10] {
            assertViolation([0x81 | bit], .reservedBitsSet(bit), code: 1002)
        }
    }

    /// A bit an extension allows passes; the others still fail.
    func testDecode_acceptsReservedBitsAnExtensionAllows() {
        var decoder = WebSocketFrameDecoder(allowedReservedBits: .rsv1)
        let output = decoder.decode(handWrittenFrame(firstByte: 0xC1, payload: [0x41]))
        XCTAssertNil(output.violation)
        XCTAssertEqual(output.frames.first?.rsv1, true)
        assertViolation(
            [0xE1, 0x00], .reservedBitsSet(0x20), code: 1002,
            decoder: WebSocketFrameDecoder(allowedReservedBits: .rsv1))
    }

    /// Every reserved opcode fails with 1002.
    func testDecode_rejectsUnknownOpcodes() {
        for opcode: UInt8 in [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            assertViolation([0x80 | opcode, 0x00], .unknownOpcode(opcode), code: 1002)
        }
    }

    /// A client must fail on a masked frame from the server (§5.1).
    func testDecode_rejectsAMaskedFrameFromTheServer() {
        let frame = handWrittenFrame(firstByte: 0x81, payload: [0x41], maskingKey: [1, 2, 3, 4])
        assertViolation(frame, .maskedFrameFromServer, code: 1002)
    }

    /// A server must fail on an unmasked frame from a client (§5.1).
    func testDecode_rejectsAnUnmaskedFrameFromAClient() {
        assertViolation(
            handWrittenFrame(firstByte: 0x81, payload: [0x41]), .unmaskedFrameFromClient, code: 1002,
            decoder: WebSocketFrameDecoder(role: .server))
    }

    /// Control frames are never fragmented (§5.5).
    func testDecode_rejectsAFragmentedControlFrame() {
        for first: UInt8 in [0x08, 0x09, 0x0A] {
            assertViolation([first, 0x00], .fragmentedControlFrame, code: 1002)
        }
    }

    /// A control frame over 125 bytes fails with 1002 once its length is read, before its payload.
    func testDecode_rejectsAControlFrameOver125Bytes() {
        assertViolation([0x89, 126, 0x00, 126], .controlFrameTooLong(126), code: 1002)
        assertViolation([0x88, 127, 0, 0, 0, 0, 0, 1, 0, 0], .controlFrameTooLong(65536), code: 1002)
    }

    /// A 64-bit length with its top bit set fails with 1002, not 1009.
    func testDecode_rejectsA64BitLengthWithTheTopBitSet() {
        assertViolation([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 1], .payloadLengthMostSignificantBitSet, code: 1002)
    }

    /// A frame over the configured maximum fails with 1009 from its header, without buffering
    /// its payload; one at the maximum passes.
    func testDecode_enforcesTheMaximumFrameSize() {
        assertViolation(
            [0x82, 126, 0x01, 0x01], .frameTooLarge(257), code: 1009,
            decoder: WebSocketFrameDecoder(maximumFrameSize: 256))
        var decoder = WebSocketFrameDecoder(maximumFrameSize: 256)
        let output = decoder.decode(handWrittenFrame(firstByte: 0x82, payload: patternedPayload(count: 256)))
        XCTAssertNil(output.violation)
        XCTAssertEqual(output.frames.first?.payload.count, 256)
    }
}
