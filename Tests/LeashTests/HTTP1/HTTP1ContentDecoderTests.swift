import Foundation
import XCTest

@testable import Leash

/// Content-Encoding decoding (RFC 9110 §8.4.1): gzip, x-gzip and deflate (zlib-wrapped or raw)
/// fed in every split, with truncation, corruption, gzip members, trailing bytes and a bomb;
/// and the encoder that makes the fixtures.
final class HTTP1ContentDecoderTests: XCTestCase {
    /// A payload long enough for several deflate codes and matches, short enough to split everywhere.
    private let payload = ZlibCompression.text(count: 700)

    /// Every format with the Content-Encoding header that a server would send it under.
    private let labelledFormats: [(format: HTTP1ContentEncoder.Format, contentEncoding: String)] = [
        (.gzip, "gzip"), (.zlib, "deflate"), (.rawDeflate, "deflate"),
    ]

    /// A decoder for `contentEncoding`, failing the test if there is none.
    private func decoder(
        _ contentEncoding: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> HTTP1ContentDecoder {
        try XCTUnwrap(HTTP1ContentDecoder.make(contentEncoding: contentEncoding), file: file, line: line)
    }

    /// What `pieces` decode to, with `finish()` after them.
    private func decode(_ pieces: [Data], as contentEncoding: String) throws -> Data {
        let decoder = try decoder(contentEncoding)
        var output = Data()
        for piece in pieces { output.append(try decoder.decode(piece)) }
        output.append(try decoder.finish())
        return output
    }

    /// The error that decoding `pieces` then finishing throws, or nil.
    private func decodingError(_ pieces: [Data], as contentEncoding: String) throws -> HTTP1ContentDecodingError? {
        let decoder = try decoder(contentEncoding)
        do {
            for piece in pieces { _ = try decoder.decode(piece) }
            try decoder.finish()
            return nil
        } catch {
            return error
        }
    }

    /// `data` one byte per piece.
    private func bytes(_ data: Data) -> [Data] { data.map { Data([$0]) } }

    // MARK: - Choosing a decoder

    /// No header, an empty one, and identity (alone, repeated, any case) need no decoder.
    func testMake_absentEmptyAndIdentityNeedNoDecoder() throws {
        for value in [nil, "", " ", "identity", "IDENTITY", " Identity\t", "identity, identity", ",", " , ,"] {
            XCTAssertNil(try HTTP1ContentDecoder.make(contentEncoding: value), "\(value ?? "nil")")
        }
    }

    /// Names are case-insensitive, trimmed of spaces and tabs, and x-gzip is gzip; identity
    /// beside one coding is dropped.
    func testMake_namesAreCaseInsensitiveAndTrimmed() throws {
        let cases: [(String, HTTP1ContentDecoder.Coding)] = [
            ("gzip", .gzip), ("GZIP", .gzip), (" Gzip\t", .gzip), ("x-gzip", .gzip), ("X-GZip", .gzip),
            ("deflate", .deflate), ("DEFLATE ", .deflate), ("identity, gzip", .gzip), ("deflate,identity", .deflate),
        ]
        for (value, coding) in cases {
            XCTAssertEqual(try decoder(value).coding, coding, value)
        }
    }

    /// Other codings, and chains of codings, are refused with what was received.
    func testMake_refusesOtherCodingsAndChains() {
        let cases: [(String, String)] = [
            ("br", "br"), ("zstd", "zstd"), (" compress ", "compress"), ("x-compress", "x-compress"),
            ("gzip, br", "gzip, br"), ("gzip, gzip", "gzip, gzip"), ("deflate,gzip", "deflate, gzip"),
            ("gzip;q=1", "gzip;q=1"),
        ]
        for (value, reported) in cases {
            XCTAssertThrowsError(try HTTP1ContentDecoder.make(contentEncoding: value), value) { error in
                XCTAssertEqual(error as? HTTP1ContentDecodingError, .unsupportedEncoding(reported), value)
            }
        }
    }

    // MARK: - Round trips

    /// gzip, zlib under deflate, raw deflate under deflate, and x-gzip decode whole.
    func testDecode_roundTripsEveryFormat() throws {
        for (format, contentEncoding) in labelledFormats + [(.gzip, "x-gzip")] {
            let compressed = try ZlibCompression.compress(payload, as: format)
            XCTAssertEqual(try decode([compressed], as: contentEncoding), payload, "\(format)")
        }
    }

    /// Every level, stored (0) included: raw stored blocks start with 0x00 or 0x01, never
    /// mistaken for a zlib header.
    func testDecode_roundTripsEveryLevel() throws {
        for level in -1...9 {
            for (format, contentEncoding) in labelledFormats {
                let compressed = try ZlibCompression.compress(payload, as: format, level: level)
                XCTAssertEqual(try decode([compressed], as: contentEncoding), payload, "\(format) level \(level)")
            }
        }
    }

    /// Servers mislabel: zlib data under gzip, gzip data under deflate; zlib tells them apart.
    func testDecode_acceptsEitherWrapperUnderEitherName() throws {
        let zlib = try ZlibCompression.compress(payload, as: .zlib)
        let gzip = try ZlibCompression.compress(payload, as: .gzip)
        XCTAssertEqual(try decode([zlib], as: "gzip"), payload)
        XCTAssertEqual(try decode([gzip], as: "deflate"), payload)
    }

    /// Split in two at every offset, the body decodes the same.
    func testDecode_everySplitInTwo() throws {
        for (format, contentEncoding) in labelledFormats {
            let compressed = try ZlibCompression.compress(payload, as: format)
            for split in 0...compressed.count {
                let pieces = [compressed.prefix(split), compressed.dropFirst(split)].map { Data($0) }
                XCTAssertEqual(try decode(pieces, as: contentEncoding), payload, "\(format) split at \(split)")
            }
        }
    }

    /// One byte at a time, so that the header detection waits for its second byte.
    func testDecode_byteByByte() throws {
        for (format, contentEncoding) in labelledFormats {
            let compressed = try ZlibCompression.compress(payload, as: format)
            XCTAssertEqual(try decode(bytes(compressed), as: contentEncoding), payload, "\(format)")
        }
    }

    /// Input that is a slice (not starting at index 0) decodes the same.
    func testDecode_slicesWithNonZeroStartIndex() throws {
        let compressed = try ZlibCompression.compress(payload, as: .gzip)
        let padded = Data([0xAA, 0xBB]) + compressed
        let decoder = try decoder("gzip")
        XCTAssertEqual(try decoder.decode(padded.dropFirst(2)), payload)
        XCTAssertNoThrow(try decoder.finish())
    }

    /// Large, incompressible data streamed through both sides in pieces.
    func testDecode_largeIncompressibleDataStreamed() throws {
        let data = ZlibCompression.noise(count: 300_000)
        let encoder = try HTTP1ContentEncoder(format: .gzip)
        var compressed = Data()
        for start in stride(from: 0, to: data.count, by: 70_000) {
            compressed.append(try encoder.encode(data[start..<min(start + 70_000, data.count)]))
        }
        compressed.append(try encoder.finish())
        let pieces = stride(from: 0, to: compressed.count, by: 9_999).map {
            Data(compressed[$0..<min($0 + 9_999, compressed.count)])
        }
        XCTAssertEqual(try decode(pieces, as: "gzip"), data)
    }

    // MARK: - Empty bodies

    /// A body of no bytes at all decodes to nothing, as browsers accept it.
    func testFinish_emptyBodyIsEmpty() throws {
        for contentEncoding in ["gzip", "deflate"] {
            XCTAssertEqual(try decode([], as: contentEncoding), Data())
            XCTAssertEqual(try decode([Data(), Data()], as: contentEncoding), Data())
        }
    }

    /// The compressed form of nothing decodes to nothing.
    func testDecode_compressedEmptyPayload() throws {
        for (format, contentEncoding) in labelledFormats {
            let compressed = try ZlibCompression.compress(Data(), as: format)
            XCTAssertEqual(try decode([compressed], as: contentEncoding), Data(), "\(format)")
            XCTAssertEqual(try decode(bytes(compressed), as: contentEncoding), Data(), "\(format)")
        }
    }

    // MARK: - Truncation and corruption

    /// Every proper prefix of a stream, down to one byte, is truncated: the trailer or more is
    /// missing. Decoding the prefix itself does not throw.
    func testFinish_everyTruncationThrowsTruncated() throws {
        for (format, contentEncoding) in labelledFormats {
            let compressed = try ZlibCompression.compress(payload, as: format)
            for length in 1..<compressed.count {
                let decoder = try decoder(contentEncoding)
                XCTAssertNoThrow(try decoder.decode(compressed.prefix(length)), "\(format) \(length)")
                XCTAssertThrowsError(try decoder.finish(), "\(format) \(length)") { error in
                    XCTAssertEqual(error as? HTTP1ContentDecodingError, .truncated, "\(format) \(length)")
                }
            }
        }
    }

    /// Data that is not compressed, a bad block type, and wrong checksums and length are
    /// corrupt, with zlib's words.
    func testDecode_corruptDataThrowsCorruptWithZlibsMessage() throws {
        let gzip = try ZlibCompression.compress(payload, as: .gzip)
        var badCRC = gzip
        badCRC[badCRC.count - 8] ^= 0xFF
        var badLength = gzip
        badLength[badLength.count - 1] ^= 0x01
        var badAdler = try ZlibCompression.compress(payload, as: .zlib)
        badAdler[badAdler.count - 1] ^= 0xFF
        let cases: [(Data, String, String)] = [
            (Data("plain text, not gzip".utf8), "gzip", "incorrect header check"),
            (badCRC, "gzip", "incorrect data check"),
            (badLength, "gzip", "incorrect length check"),
            (badAdler, "deflate", "incorrect data check"),
            (Data([0x07, 0x00]), "deflate", "invalid block type"),  // raw, final, block type 3
            (Data([0x1F, 0x8B, 0x07, 0x00]), "gzip", "unknown compression method"),
        ]
        for (data, contentEncoding, message) in cases {
            XCTAssertEqual(try decodingError([data], as: contentEncoding), .corrupt(message), message)
            XCTAssertEqual(try decodingError(bytes(data), as: contentEncoding), .corrupt(message), message)
        }
    }

    /// A zlib header asking for a preset dictionary cannot be decoded: HTTP has none to give.
    func testDecode_presetDictionaryIsCorrupt() throws {
        // CMF 0x78, FLG with FDICT set and a valid check (0x78BB % 31 == 0), then a DICTID.
        let data = Data([0x78, 0xBB, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00])
        guard case .corrupt = try decodingError([data], as: "deflate") else {
            return XCTFail("expected corrupt")
        }
    }

    /// After an error, every call throws it again, and nothing more is decoded.
    func testDecode_errorsAreSticky() throws {
        let decoder = try decoder("gzip")
        XCTAssertThrowsError(try decoder.decode(Data("nope".utf8)))
        let gzip = try ZlibCompression.compress(payload, as: .gzip)
        XCTAssertThrowsError(try decoder.decode(gzip)) { error in
            XCTAssertEqual(error as? HTTP1ContentDecodingError, .corrupt("incorrect header check"))
        }
        XCTAssertThrowsError(try decoder.finish()) { error in
            XCTAssertEqual(error as? HTTP1ContentDecodingError, .corrupt("incorrect header check"))
        }
        let truncated = try self.decoder("gzip")
        _ = try truncated.decode(gzip.prefix(10))
        XCTAssertThrowsError(try truncated.finish())
        XCTAssertThrowsError(try truncated.decode(gzip.dropFirst(10))) { error in
            XCTAssertEqual(error as? HTTP1ContentDecodingError, .truncated)
        }
    }

    // MARK: - gzip members and trailing bytes

    /// Several gzip members decode as one body, split anywhere, even between a member's magic
    /// bytes; an empty member in the middle too.
    func testDecode_concatenatedGzipMembers() throws {
        let first = ZlibCompression.text(count: 300, seed: 3)
        let second = ZlibCompression.text(count: 400, seed: 4)
        let body =
            try ZlibCompression.compress(first, as: .gzip) + ZlibCompression.compress(Data(), as: .gzip)
            + ZlibCompression.compress(second, as: .gzip, level: 0)
        XCTAssertEqual(try decode([body], as: "gzip"), first + second)
        XCTAssertEqual(try decode(bytes(body), as: "gzip"), first + second)
        for split in 0...body.count {
            let pieces = [body.prefix(split), body.dropFirst(split)].map { Data($0) }
            XCTAssertEqual(try decode(pieces, as: "gzip"), first + second, "split at \(split)")
        }
    }

    /// A second member cut short is truncated, though the first was complete.
    func testFinish_truncatedSecondMemberThrowsTruncated() throws {
        let member = try ZlibCompression.compress(payload, as: .gzip)
        let body = member + member.prefix(member.count - 4)
        XCTAssertEqual(try decodingError([body], as: "gzip"), .truncated)
        XCTAssertEqual(try decodingError([member + member.prefix(2)], as: "gzip"), .truncated)
    }

    /// Bytes after the end of the stream (after the last gzip member) are ignored, however
    /// they arrive: padding, junk, a lone byte that might have started a member.
    func testDecode_trailingBytesAreIgnored() throws {
        let gzip = try ZlibCompression.compress(payload, as: .gzip)
        let zlib = try ZlibCompression.compress(payload, as: .zlib)
        let raw = try ZlibCompression.compress(payload, as: .rawDeflate)
        let cases: [(Data, String)] = [
            (gzip + Data("trailing junk".utf8), "gzip"), (gzip + Data(count: 512), "gzip"),
            (gzip + Data([0x1F]), "gzip"),
            (gzip + Data([0x1F, 0x00, 0x1F, 0x8B]), "gzip"), (zlib + Data("junk".utf8), "deflate"),
            (zlib + gzip, "deflate"), (raw + Data([0x1F, 0x8B, 0x08]), "deflate"),
        ]
        for (body, contentEncoding) in cases {
            XCTAssertEqual(try decode([body], as: contentEncoding), payload)
            XCTAssertEqual(try decode(bytes(body), as: contentEncoding), payload)
        }
        // After the end, more input is ignored, and finish may be called again.
        let decoder = try decoder("gzip")
        XCTAssertEqual(try decoder.decode(gzip), payload)
        XCTAssertEqual(try decoder.finish(), Data())
        XCTAssertEqual(try decoder.decode(gzip), Data())
        XCTAssertEqual(try decoder.finish(), Data())
    }

    // MARK: - Bounded output

    /// 10 MB of zeros compresses to about 10 KB; fed 1 KiB at a time, each call returns at
    /// most `maximumOutputSize(forInputCount: 1024)` (about 1 MiB), and all of it comes out.
    func testDecode_bombDecodesInBoundedPieces() throws {
        let size = 10_000_000
        let bomb = try ZlibCompression.compress(Data(count: size), as: .gzip, level: 9)
        XCTAssertLessThan(bomb.count, 20_000)
        let decoder = try decoder("gzip")
        var total = 0
        var largest = 0
        for start in stride(from: 0, to: bomb.count, by: 1024) {
            let piece = bomb[start..<min(start + 1024, bomb.count)]
            let output = try decoder.decode(piece)
            XCTAssertLessThanOrEqual(output.count, HTTP1ContentDecoder.maximumOutputSize(forInputCount: piece.count))
            XCTAssertFalse(output.contains { $0 != 0 })
            total += output.count
            largest = max(largest, output.count)
        }
        try decoder.finish()
        XCTAssertEqual(total, size)
        XCTAssertGreaterThan(largest, 512 * 1024, "zeros should inflate far more than 512:1")
    }

    /// Byte by byte, no call returns more than its one byte can inflate to.
    func testDecode_bombByteByByteStaysWithinTheBound() throws {
        let bomb = try ZlibCompression.compress(Data(count: 1_000_000), as: .rawDeflate, level: 9)
        let decoder = try decoder("deflate")
        var total = 0
        for byte in bomb {
            let output = try decoder.decode(Data([byte]))
            XCTAssertLessThanOrEqual(output.count, HTTP1ContentDecoder.maximumOutputSize(forInputCount: 1))
            total += output.count
        }
        try decoder.finish()
        XCTAssertEqual(total, 1_000_000)
    }

    /// The bound never overflows.
    func testMaximumOutputSize_saturates() {
        XCTAssertEqual(HTTP1ContentDecoder.maximumOutputSize(forInputCount: 0), 2048)
        XCTAssertEqual(HTTP1ContentDecoder.maximumOutputSize(forInputCount: 1), 1032 + 2048)
        XCTAssertEqual(HTTP1ContentDecoder.maximumOutputSize(forInputCount: Int.max), Int.max)
        XCTAssertEqual(HTTP1ContentDecoder.maximumOutputSize(forInputCount: -5), 2048)
    }

    // MARK: - Never crashing

    /// Random bytes, and valid streams with random bytes changed, end in output or an error,
    /// never a crash or hang.
    func testDecode_randomAndMutatedInputNeverCrashes() throws {
        var generator = ZlibCompression.SeededGenerator(seed: 42)
        let valid = try labelledFormats.map {
            (try ZlibCompression.compress(payload, as: $0.format), $0.contentEncoding)
        }
        for round in 0..<600 {
            var body: Data
            let contentEncoding: String
            if round % 2 == 0 {
                body = ZlibCompression.noise(count: Int(generator.next() % 300), seed: generator.next())
                contentEncoding = round % 4 == 0 ? "gzip" : "deflate"
            } else {
                let (data, encoding) = valid[Int(generator.next() % UInt64(valid.count))]
                body = data
                contentEncoding = encoding
                for _ in 0..<(1 + generator.next() % 3) {
                    body[Int(generator.next() % UInt64(body.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            let split = body.isEmpty ? 0 : Int(generator.next() % UInt64(body.count))
            let decoder = try decoder(contentEncoding)
            do {
                _ = try decoder.decode(body.prefix(split))
                _ = try decoder.decode(body.dropFirst(split))
                try decoder.finish()
            } catch {
                // Any decoding error is fine; only its kind is checked.
                XCTAssertNotEqual(error, .unsupportedEncoding(contentEncoding))
            }
        }
    }

    // MARK: - Errors and the encoder

    /// Each error reads as a sentence.
    func testDescription_describesEachError() {
        XCTAssertEqual(
            HTTP1ContentDecodingError.unsupportedEncoding("br").description, "unsupported Content-Encoding \"br\"")
        XCTAssertEqual(
            HTTP1ContentDecodingError.corrupt("incorrect data check").description,
            "corrupt compressed body: incorrect data check")
        XCTAssertEqual(HTTP1ContentDecodingError.truncated.description, "the compressed body ended early")
        XCTAssertEqual(
            HTTP1ContentDecodingError.zlibFailure(function: "inflate", status: -4).description,
            "zlib's inflate failed with status -4")
        XCTAssertEqual(HTTP1ContentEncodingError.finished.description, "the compressed stream was already finished")
    }

    /// The encoder writes each container's header, refuses levels zlib does not know and any
    /// use after finishing.
    func testEncoder_headersLevelsAndFinishing() throws {
        let gzip = try ZlibCompression.compress(payload, as: .gzip)
        XCTAssertEqual(Array(gzip.prefix(3)), [0x1F, 0x8B, 0x08])
        let zlib = try ZlibCompression.compress(payload, as: .zlib)
        XCTAssertEqual(zlib.first, 0x78)
        XCTAssertThrowsError(try HTTP1ContentEncoder(format: .gzip, level: 10)) { error in
            XCTAssertEqual(error as? HTTP1ContentEncodingError, .zlibFailure(function: "deflateInit2", status: -2))
        }
        let encoder = try HTTP1ContentEncoder(format: .zlib)
        XCTAssertEqual(encoder.format, .zlib)
        _ = try encoder.encode(payload)
        _ = try encoder.finish()
        XCTAssertThrowsError(try encoder.finish()) { XCTAssertEqual($0 as? HTTP1ContentEncodingError, .finished) }
        XCTAssertThrowsError(try encoder.encode(payload)) {
            XCTAssertEqual($0 as? HTTP1ContentEncodingError, .finished)
        }
    }
}
