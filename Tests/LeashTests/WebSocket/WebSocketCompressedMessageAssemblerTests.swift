import Foundation
import Leash
import XCTest

/// Compressed messages through the decoder and the assembler (RFC 7692 §6): RSV1 on the first
/// frame only, inflating fragment by fragment, and UTF-8 and size checks on the inflated bytes.
final class WebSocketCompressedMessageAssemblerTests: XCTestCase {
    /// "Hello" compressed on its own (RFC 7692 §7.2.3.1).
    private let helloCompressed: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    /// A second "Hello" compressed with the first in the window (§7.2.3.2).
    private let helloAgainCompressed: [UInt8] = [0xF2, 0x00, 0x11, 0x00, 0x00]

    /// A frame with `bytes` as its payload.
    private func frame(
        _ opcode: WebSocketFrame.Opcode, _ bytes: [UInt8], fin: Bool = true, rsv1: Bool = false
    ) -> WebSocketFrame {
        WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, payload: Data(bytes))
    }

    /// An assembler with a fresh decompressor.
    private func assembler(
        maximumMessageSize: Int = WebSocketMessageAssembler.defaultMaximumMessageSize, noContextTakeover: Bool = false
    ) throws -> WebSocketMessageAssembler {
        WebSocketMessageAssembler(
            maximumMessageSize: maximumMessageSize,
            decompressor: try PerMessageDeflateDecompressor(noContextTakeover: noContextTakeover))
    }

    /// The violation that appending `frames` in turn ends with, or `nil`.
    private func violation(appending frames: [WebSocketFrame], to assembler: inout WebSocketMessageAssembler)
        -> WebSocketProtocolViolation?
    {
        for frame in frames {
            do {
                _ = try assembler.append(frame)
            } catch {
                return error
            }
        }
        return nil
    }

    /// A compressed message is inflated; uncompressed ones between compressed ones pass as they
    /// are and leave the shared context alone.
    func testAppend_inflatesCompressedMessagesAndPassesOthers() throws {
        var assembler = try assembler()
        XCTAssertEqual(try assembler.append(frame(.text, helloCompressed, rsv1: true)), .text("Hello"))
        XCTAssertEqual(try assembler.append(frame(.binary, [0xF2, 0x00], rsv1: false)), .binary(Data([0xF2, 0x00])))
        XCTAssertEqual(try assembler.append(frame(.text, Array("raw".utf8))), .text("raw"))
        XCTAssertEqual(
            try assembler.append(frame(.binary, helloAgainCompressed, rsv1: true)), .binary(Data("Hello".utf8)))
    }

    /// A compressed message in fragments, RSV1 on the first only, with a ping between them.
    func testAppend_inflatesAFragmentedCompressedMessage() throws {
        let text = String(repeating: "fragmented and compressed, ", count: 200) + "ünïcödé"
        let compressed = Array(try PerMessageDeflateCompressor().compress(Data(text.utf8)))
        XCTAssertGreaterThan(compressed.count, 30)
        var assembler = try assembler()
        XCTAssertNil(try assembler.append(frame(.text, Array(compressed[..<10]), fin: false, rsv1: true)))
        XCTAssertEqual(try assembler.append(frame(.ping, [1])), .ping(Data([1])))
        XCTAssertNil(try assembler.append(frame(.continuation, Array(compressed[10..<11]), fin: false)))
        XCTAssertNil(try assembler.append(frame(.continuation, [], fin: false)))
        XCTAssertEqual(try assembler.append(frame(.continuation, Array(compressed[11...]))), .text(text))
        XCTAssertFalse(assembler.isAssembling)
    }

    /// RSV1 on a continuation or a control frame, or with no decompressor, fails with 1002.
    func testAppend_rejectsRSV1WherePermessageDeflateDoesNotDefineIt() throws {
        var onContinuation = try assembler()
        let continuation = violation(
            appending: [frame(.text, helloCompressed, fin: false, rsv1: true), frame(.continuation, [], rsv1: true)],
            to: &onContinuation)
        XCTAssertEqual(continuation, .reservedBitsSet(0x40))
        XCTAssertEqual(continuation?.closeCode, .protocolError)

        for opcode in [WebSocketFrame.Opcode.ping, .pong, .close] {
            var onControl = try assembler()
            XCTAssertEqual(
                violation(appending: [frame(opcode, [], rsv1: true)], to: &onControl), .reservedBitsSet(0x40))
        }

        var withoutExtension = WebSocketMessageAssembler()
        XCTAssertEqual(
            violation(appending: [frame(.text, helloCompressed, rsv1: true)], to: &withoutExtension),
            .reservedBitsSet(0x40))
    }

    /// Text is checked as UTF-8 after inflating: bad bytes inside compressed text fail with 1007.
    func testAppend_checksInflatedTextAsUTF8() throws {
        let bad = try PerMessageDeflateCompressor().compress(Data([0x61, 0x62, 0xC0, 0xAF]))
        var assembler = try assembler()
        let failure = violation(appending: [WebSocketFrame(rsv1: true, opcode: .text, payload: bad)], to: &assembler)
        XCTAssertEqual(failure, .invalidUTF8(atOffset: 2))
        XCTAssertEqual(failure?.closeCode, .invalidFramePayloadData)

        // A sequence cut at the end of the inflated message fails too.
        let cut = try PerMessageDeflateCompressor().compress(Data([0x61, 0xE2, 0x82]))
        var cutAssembler = try self.assembler()
        XCTAssertEqual(
            violation(appending: [WebSocketFrame(rsv1: true, opcode: .text, payload: cut)], to: &cutAssembler),
            .invalidUTF8(atOffset: 3))
    }

    /// The size limit applies to the inflated message, however small its compressed form.
    func testAppend_limitsTheInflatedSize() throws {
        let compressed = try PerMessageDeflateCompressor().compress(Data(count: 100_000))
        XCTAssertLessThan(compressed.count, 1_000)
        var assembler = try assembler(maximumMessageSize: 50_000)
        let failure = violation(
            appending: [WebSocketFrame(rsv1: true, opcode: .binary, payload: compressed)], to: &assembler)
        XCTAssertEqual(failure, .messageTooLarge(50_001))
        XCTAssertEqual(failure?.closeCode, .messageTooBig)

        var roomy = try self.assembler(maximumMessageSize: 100_000)
        XCTAssertEqual(
            try roomy.append(WebSocketFrame(rsv1: true, opcode: .binary, payload: compressed)),
            .binary(Data(count: 100_000)))
    }

    /// Corrupt compressed data fails with 1007.
    func testAppend_rejectsCorruptCompressedData() throws {
        var assembler = try assembler()
        let failure = violation(appending: [frame(.binary, [0xFF, 0xFF, 0xFF], rsv1: true)], to: &assembler)
        XCTAssertEqual(failure, .invalidCompressedData)
        XCTAssertEqual(failure?.closeCode, .invalidFramePayloadData)
    }

    /// The decoder lets RSV1 through only when permessage-deflate was agreed; RSV2 never.
    func testDecoder_allowsRSV1OnlyWithTheExtension() {
        let bytes = handWrittenFrame(firstByte: 0xC1, payload: helloCompressed)
        var plain = WebSocketFrameDecoder()
        XCTAssertEqual(plain.decode(bytes).violation, .reservedBitsSet(0x40))
        var negotiated = WebSocketFrameDecoder(allowedReservedBits: PerMessageDeflateParameters.reservedBits)
        let output = negotiated.decode(bytes)
        XCTAssertNil(output.violation)
        XCTAssertEqual(output.frames.first?.rsv1, true)
        var rsv2 = WebSocketFrameDecoder(allowedReservedBits: PerMessageDeflateParameters.reservedBits)
        XCTAssertEqual(rsv2.decode(handWrittenFrame(firstByte: 0xA1, payload: [])).violation, .reservedBitsSet(0x20))
    }

    /// End to end: compressor, encoder, decoder and assembler agree, for messages below and
    /// above the compression threshold, with and without context takeover.
    func testPipeline_encodeDecodeAndAssembleRoundTrip() throws {
        for noContextTakeover in [false, true] {
            let parameters = PerMessageDeflateParameters(
                clientNoContextTakeover: noContextTakeover, serverNoContextTakeover: noContextTakeover)
            let compressor = try parameters.makeClientCompressor()
            // The peer here inflates what the client compressed, so it uses the client's window.
            var assembler = WebSocketMessageAssembler(
                decompressor: try PerMessageDeflateDecompressor(
                    windowBits: parameters.clientMaxWindowBits, noContextTakeover: parameters.clientNoContextTakeover))
            var decoder = WebSocketFrameDecoder(
                role: .server, allowedReservedBits: PerMessageDeflateParameters.reservedBits)
            var encoder = WebSocketFrameEncoder()
            let texts = [
                "short", String(repeating: "a longer message, ", count: 50), "short",
                String(repeating: "a longer message, ", count: 50),
            ]
            var received: [WebSocketMessageAssembler.Message] = []
            var compressedCount = 0
            for text in texts {
                let frame = try compressor.messageFrame(opcode: .text, payload: Data(text.utf8))
                if frame.rsv1 { compressedCount += 1 }
                let output = decoder.decode(try encoder.encode(frame))
                XCTAssertNil(output.violation)
                for frame in output.frames {
                    if let message = try assembler.append(frame) { received.append(message) }
                }
            }
            XCTAssertEqual(received, texts.map { .text($0) })
            XCTAssertEqual(compressedCount, 2)
        }
    }
}
