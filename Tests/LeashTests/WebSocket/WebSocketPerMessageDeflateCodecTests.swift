import Foundation
import Leash
import XCTest

/// Compressing and inflating messages (RFC 7692 §7.2): the RFC's examples, context takeover,
/// window sizes, the size cap against decompression bombs, and corrupt data.
final class WebSocketPerMessageDeflateCodecTests: XCTestCase {
    /// "Hello" compressed on its own (RFC 7692 §7.2.3.1).
    private let helloCompressed: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
    /// A second "Hello" compressed with the first in the window (§7.2.3.2).
    private let helloAgainCompressed: [UInt8] = [0xF2, 0x00, 0x11, 0x00, 0x00]

    /// `count` pseudo-random bytes from `generator`: data that does not compress.
    private func randomBytes(_ count: Int, using generator: inout WebSocketSeededGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Text-like data with repeats both near and far (about 23 KB back), so that a window too
    /// small for its compressor's shows: an inflater with a smaller window fails on it.
    private func messageWithFarRepeats(seed: UInt64) -> Data {
        var generator = WebSocketSeededGenerator(seed: seed)
        let block = randomBytes(3000, using: &generator)
        let filler = (0..<20_000).map { _ in UInt8.random(in: 0x61...0x66, using: &generator) }
        return Data(block + filler + block + Array("near near near near".utf8))
    }

    /// The violation `body` throws, or `nil`.
    private func violation(_ body: () throws -> Void) -> WebSocketProtocolViolation? {
        do {
            try body()
            return nil
        } catch {
            return error as? WebSocketProtocolViolation
        }
    }

    /// The compressor reproduces the RFC's bytes: "Hello" alone, then again with context takeover.
    func testCompress_matchesTheRFCExamplesWithContextTakeover() throws {
        let compressor = try PerMessageDeflateCompressor()
        XCTAssertEqual(Array(try compressor.compress(Data("Hello".utf8))), helloCompressed)
        XCTAssertEqual(Array(try compressor.compress(Data("Hello".utf8))), helloAgainCompressed)
    }

    /// Without context takeover every message is compressed on its own: the same bytes again.
    func testCompress_withoutContextTakeoverRepeatsTheFirstForm() throws {
        let compressor = try PerMessageDeflateCompressor(noContextTakeover: true)
        XCTAssertEqual(Array(try compressor.compress(Data("Hello".utf8))), helloCompressed)
        XCTAssertEqual(Array(try compressor.compress(Data("Hello".utf8))), helloCompressed)
    }

    /// An empty message compresses to the single `00` of §7.2.3.6, and inflates back to nothing.
    func testCompress_emptyMessageIsOneZeroByte() throws {
        let compressor = try PerMessageDeflateCompressor()
        XCTAssertEqual(Array(try compressor.compress(Data())), [0x00])
        let decompressor = try PerMessageDeflateDecompressor()
        XCTAssertEqual(try decompressor.decompress(Data([0x00]), maximumSize: 0), Data())
    }

    /// The decompressor reads every form of "Hello" the RFC shows (§7.2.3.1–§7.2.3.5), keeping
    /// context across them, even across a final block (BFINAL), which ends zlib's stream.
    func testDecompress_readsTheRFCExamples() throws {
        let decompressor = try PerMessageDeflateDecompressor()
        let hello = Data("Hello".utf8)
        let forms: [[UInt8]] = [
            helloCompressed,
            helloAgainCompressed,
            // §7.2.3.3: a stored (uncompressed) block.
            [0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00],
            // §7.2.3.4: a block with BFINAL set, then an empty block's header.
            [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00],
            // Context must survive the final block: this points back into the last message.
            helloAgainCompressed,
            // §7.2.3.5: two blocks, "He" then "llo".
            [0xF2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xCA, 0xC9, 0xC9, 0x07, 0x00],
        ]
        for (index, form) in forms.enumerated() {
            XCTAssertEqual(try decompressor.decompress(Data(form), maximumSize: 100), hello, "form \(index)")
        }
    }

    /// Without context takeover the inflater forgets each message: a reference back into the
    /// previous one is then corrupt data, 1007.
    func testDecompress_withoutContextTakeoverForgetsThePreviousMessage() throws {
        let decompressor = try PerMessageDeflateDecompressor(noContextTakeover: true)
        XCTAssertEqual(try decompressor.decompress(Data(helloCompressed), maximumSize: 5), Data("Hello".utf8))
        XCTAssertEqual(try decompressor.decompress(Data(helloCompressed), maximumSize: 5), Data("Hello".utf8))
        let failure = violation { _ = try decompressor.decompress(Data(helloAgainCompressed), maximumSize: 100) }
        XCTAssertEqual(failure, .invalidCompressedData)
        XCTAssertEqual(failure?.closeCode, .invalidFramePayloadData)
    }

    /// Messages round-trip at every window size, with and without context takeover. With it,
    /// a repeated message costs almost nothing; without it, exactly what the first did.
    func testRoundTrip_everyWindowSizeWithAndWithoutContextTakeover() throws {
        for bits in 8...15 {
            for noContextTakeover in [false, true] {
                let label = "window \(bits), no context takeover \(noContextTakeover)"
                let compressor = try PerMessageDeflateCompressor(windowBits: bits, noContextTakeover: noContextTakeover)
                let decompressor = try PerMessageDeflateDecompressor(
                    windowBits: bits, noContextTakeover: noContextTakeover)
                let message = messageWithFarRepeats(seed: UInt64(bits))
                var sizes: [Int] = []
                for _ in 0..<3 {
                    let compressed = try compressor.compress(message)
                    sizes.append(compressed.count)
                    XCTAssertEqual(try decompressor.decompress(compressed, maximumSize: message.count), message, label)
                }
                XCTAssertLessThan(sizes[0], message.count, label)
                if noContextTakeover {
                    XCTAssertEqual(sizes, [sizes[0], sizes[0], sizes[0]], label)
                } else if bits == 15 {
                    // Only a 32 KiB window holds the whole 23 KB message for the next to copy.
                    XCTAssertLessThan(sizes[1] * 20, sizes[0], label)
                }
            }
        }
    }

    /// Each window size is really used. zlib's inflate does not check distances inside the
    /// output of one call, only into the window kept from earlier calls, so the test points
    /// one message back into the previous one: from a wider compressor that fails as corrupt.
    func testRoundTrip_compressorKeepsWithinItsWindow() throws {
        let message = messageWithFarRepeats(seed: 99)
        let wide = try PerMessageDeflateCompressor(windowBits: 15)
        let narrowInflater = try PerMessageDeflateDecompressor(windowBits: 9)
        XCTAssertEqual(try narrowInflater.decompress(try wide.compress(message), maximumSize: .max), message)
        let wideAgain = try wide.compress(message)
        XCTAssertEqual(
            violation { _ = try narrowInflater.decompress(wideAgain, maximumSize: .max) }, .invalidCompressedData)

        let narrow = try PerMessageDeflateCompressor(windowBits: 9)
        let matchingInflater = try PerMessageDeflateDecompressor(windowBits: 9)
        for _ in 0..<2 {
            let compressed = try narrow.compress(message)
            XCTAssertGreaterThan(compressed.count, wideAgain.count)
            XCTAssertEqual(try matchingInflater.decompress(compressed, maximumSize: .max), message)
        }
    }

    /// A window of 8 bits, which zlib's deflate cannot use, still gives data that an 8-bit
    /// inflater reads: each second message repeats the first, so it points back across
    /// messages (where inflate checks distances) by up to the window and past it.
    func testRoundTrip_eightBitWindow() throws {
        var generator = WebSocketSeededGenerator(seed: 8)
        for distance in [100, 200, 250, 251, 256, 300, 511, 2_000] {
            let compressor = try PerMessageDeflateCompressor(windowBits: 8)
            XCTAssertEqual(compressor.windowBits, 8)
            let decompressor = try PerMessageDeflateDecompressor(windowBits: 8)
            let message = Data(randomBytes(distance, using: &generator))
            for _ in 0..<2 {
                XCTAssertEqual(
                    try decompressor.decompress(try compressor.compress(message), maximumSize: .max), message,
                    "distance \(distance)")
            }
        }
        // The check has teeth: a 10-bit compressor points 300 bytes back, which 8 bits cannot follow.
        let wider = try PerMessageDeflateCompressor(windowBits: 10)
        let decompressor = try PerMessageDeflateDecompressor(windowBits: 8)
        let message = Data(randomBytes(300, using: &generator))
        XCTAssertEqual(try decompressor.decompress(try wider.compress(message), maximumSize: .max), message)
        let again = try wider.compress(message)
        XCTAssertEqual(violation { _ = try decompressor.decompress(again, maximumSize: .max) }, .invalidCompressedData)
    }

    /// Window sizes outside 8...15 are refused by both ends.
    func testInit_rejectsWindowBitsOutOfRange() {
        XCTAssertThrowsError(try PerMessageDeflateCompressor(windowBits: 7)) {
            XCTAssertEqual($0 as? WebSocketCompressionError, .windowBitsOutOfRange(7))
        }
        XCTAssertThrowsError(try PerMessageDeflateDecompressor(windowBits: 16)) {
            XCTAssertEqual($0 as? WebSocketCompressionError, .windowBitsOutOfRange(16))
        }
    }

    /// A message inflated fragment by fragment, cut anywhere, comes out whole, and the next
    /// message still shares its context.
    func testDecompress_fragmentsCutAnywhere() throws {
        let compressor = try PerMessageDeflateCompressor()
        let decompressor = try PerMessageDeflateDecompressor()
        let message = messageWithFarRepeats(seed: 7)
        let compressed = try compressor.compress(message)
        var generator = WebSocketSeededGenerator(seed: 42)
        let cuts = (0..<12).map { _ in Int.random(in: 0..<compressed.count, using: &generator) }
        // Empty and one-byte fragments at the start, then random ones, the last one final.
        let ends = Set(cuts + [0, 1]).sorted() + [compressed.count]
        var output = Data()
        var start = 0
        for end in ends {
            try decompressor.decompress(
                compressed[start..<end], isFinal: end == compressed.count, appendingTo: &output,
                maximumSize: message.count)
            start = end
        }
        XCTAssertEqual(output, message)
        XCTAssertEqual(try decompressor.decompress(try compressor.compress(message), maximumSize: .max), message)
    }

    /// A message inflating to exactly the cap passes; one byte more fails with 1009.
    func testDecompress_capIsInclusive() throws {
        let message = Data(repeating: 0x61, count: 10_000)
        let compressed = try PerMessageDeflateCompressor(noContextTakeover: true).compress(message)
        XCTAssertEqual(try PerMessageDeflateDecompressor().decompress(compressed, maximumSize: 10_000), message)
        let failure = violation { _ = try PerMessageDeflateDecompressor().decompress(compressed, maximumSize: 9_999) }
        XCTAssertEqual(failure, .messageTooLarge(10_000))
        XCTAssertEqual(failure?.closeCode, .messageTooBig)
    }

    /// 100 MB of zeros, about 100 KB compressed, stops at a 1 MiB cap with 1009, and the output
    /// never held more than the cap and the one byte that proved it passed.
    func testDecompress_stopsADecompressionBombAtTheCap() throws {
        // One DEFLATE stream for 100 MB, built a megabyte at a time: with context takeover the
        // messages' compressed forms, each with its stripped flush marker put back, join into one.
        let compressor = try PerMessageDeflateCompressor()
        let megabyte = Data(count: 1_000_000)
        let firstMegabyte = try compressor.compress(megabyte)
        var bomb = firstMegabyte
        for _ in 1..<100 {
            bomb.append(contentsOf: [0x00, 0x00, 0xFF, 0xFF])
            bomb.append(try compressor.compress(megabyte))
        }
        XCTAssertLessThan(bomb.count, 200_000)

        let cap = 1 << 20
        let decompressor = try PerMessageDeflateDecompressor()
        var output = Data()
        let failure = violation {
            try decompressor.decompress(bomb, isFinal: true, appendingTo: &output, maximumSize: cap)
        }
        XCTAssertEqual(failure, .messageTooLarge(cap + 1))
        XCTAssertEqual(failure?.closeCode, .messageTooBig)
        XCTAssertEqual(output.count, cap + 1)

        // Below the cap, the same stream is fine: the bomb is one only for its size.
        XCTAssertEqual(try PerMessageDeflateDecompressor().decompress(firstMegabyte, maximumSize: cap), megabyte)
    }

    /// The cap counts what the output already holds: earlier fragments of the same message.
    func testDecompress_capCountsEarlierFragments() throws {
        let compressed = try PerMessageDeflateCompressor().compress(Data(repeating: 0x62, count: 100))
        var output = Data(repeating: 0x61, count: 950)
        let failure = violation {
            try PerMessageDeflateDecompressor().decompress(
                compressed, isFinal: true, appendingTo: &output, maximumSize: 1_000)
        }
        XCTAssertEqual(failure, .messageTooLarge(1_001))
        XCTAssertEqual(output.count, 1_001)
    }

    /// Data that is not DEFLATE fails with 1007: a reserved block type, and a distance back
    /// past the start of the stream.
    func testDecompress_rejectsCorruptData() throws {
        // BFINAL 1, BTYPE 11 (reserved).
        let reservedBlockType = violation {
            _ = try PerMessageDeflateDecompressor().decompress(Data([0xFF, 0xFF, 0xFF]), maximumSize: 100)
        }
        XCTAssertEqual(reservedBlockType, .invalidCompressedData)
        XCTAssertEqual(reservedBlockType?.closeCode, .invalidFramePayloadData)
        // The second "Hello" of §7.2.3.2 without the first: it points back at nothing.
        XCTAssertEqual(
            violation {
                _ = try PerMessageDeflateDecompressor().decompress(Data(helloAgainCompressed), maximumSize: 100)
            },
            .invalidCompressedData)
        // A stored block whose length and its complement disagree.
        XCTAssertEqual(
            violation {
                _ = try PerMessageDeflateDecompressor().decompress(
                    Data([0x00, 0x05, 0x00, 0xFA, 0xFE, 0x48]), maximumSize: 100)
            },
            .invalidCompressedData)
    }

    /// A message whose data does not end where the stripped marker completes it fails with
    /// 1007, rather than coming out cut short with the stream left mid-block: data cut before
    /// its end-of-block code, an empty payload (not even the `00` of an empty message), and
    /// data that kept the marker RFC 7692 §7.2.1 says to strip.
    func testDecompress_rejectsDataThatDoesNotEndOnABlockBoundary() throws {
        let incomplete: [[UInt8]] = [
            Array(helloCompressed.dropLast(2)),
            [],
            helloCompressed + [0x00, 0x00, 0xFF, 0xFF],
        ]
        for payload in incomplete {
            let decompressor = try PerMessageDeflateDecompressor()
            XCTAssertEqual(
                violation { _ = try decompressor.decompress(Data(payload), maximumSize: 100) }, .invalidCompressedData,
                "\(payload)")
        }
        // The same stream goes on once a message ends cleanly: the check does not disturb it.
        let decompressor = try PerMessageDeflateDecompressor()
        XCTAssertEqual(try decompressor.decompress(Data([0x00]), maximumSize: 0), Data())
        XCTAssertEqual(try decompressor.decompress(Data(helloCompressed), maximumSize: 5), Data("Hello".utf8))
    }

    /// Outgoing frames: short payloads and control frames go out as they are; longer text is
    /// compressed with RSV1; without context takeover, data that does not shrink is sent raw.
    func testMessageFrame_compressesOnlyWhereItPays() throws {
        let compressor = try PerMessageDeflateCompressor()
        let threshold = PerMessageDeflateCompressor.defaultMinimumCompressedSize
        let short = Data(repeating: 0x61, count: threshold - 1)
        XCTAssertEqual(
            try compressor.messageFrame(opcode: .text, payload: short), WebSocketFrame(opcode: .text, payload: short))
        let ping = Data(repeating: 0x61, count: 125)
        XCTAssertEqual(
            try compressor.messageFrame(opcode: .ping, payload: ping), WebSocketFrame(opcode: .ping, payload: ping))

        let decompressor = try PerMessageDeflateDecompressor()
        let long = Data(repeating: 0x61, count: threshold)
        let frame = try compressor.messageFrame(opcode: .binary, payload: long)
        XCTAssertTrue(frame.rsv1)
        XCTAssertTrue(frame.fin)
        XCTAssertEqual(frame.opcode, .binary)
        XCTAssertLessThan(frame.payload.count, long.count)
        XCTAssertEqual(try decompressor.decompress(frame.payload, maximumSize: .max), long)

        var generator = WebSocketSeededGenerator(seed: 3)
        let noise = Data(randomBytes(1_000, using: &generator))
        // With context takeover the peer's window must see it, so it goes compressed anyway.
        XCTAssertTrue(try compressor.messageFrame(opcode: .binary, payload: noise).rsv1)
        let resetting = try PerMessageDeflateCompressor(noContextTakeover: true)
        XCTAssertEqual(
            try resetting.messageFrame(opcode: .binary, payload: noise), WebSocketFrame(opcode: .binary, payload: noise)
        )
        XCTAssertEqual(
            try PerMessageDeflateCompressor(minimumCompressedSize: 0).messageFrame(
                opcode: .text, payload: Data("Hello".utf8)
            ).payload, Data(helloCompressed))
    }

    /// The agreed parameters make the client's ends with the right windows and takeover.
    func testParameters_makeClientEnds() throws {
        let parameters = PerMessageDeflateParameters(
            clientMaxWindowBits: 9, serverMaxWindowBits: 12, clientNoContextTakeover: true,
            serverNoContextTakeover: false)
        let compressor = try parameters.makeClientCompressor(minimumCompressedSize: 10)
        XCTAssertEqual(compressor.windowBits, 9)
        XCTAssertTrue(compressor.noContextTakeover)
        XCTAssertEqual(compressor.minimumCompressedSize, 10)
        let decompressor = try parameters.makeClientDecompressor()
        XCTAssertEqual(decompressor.windowBits, 12)
        XCTAssertFalse(decompressor.noContextTakeover)
        XCTAssertEqual(PerMessageDeflateParameters.reservedBits, .rsv1)
    }
}
