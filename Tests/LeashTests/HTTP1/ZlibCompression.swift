import Foundation
import XCTest

@testable import Leash

/// Compressed fixtures for the content-decoding tests. The test target does not depend on
/// CZlib, so they come from Leash's own `HTTP1ContentEncoder`, which the tests check against the
/// decoder (and zlib's checksums check both).
enum ZlibCompression {
    /// `data` compressed as `format` in one go.
    static func compress(
        _ data: Data, as format: HTTP1ContentEncoder.Format, level: Int = -1, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Data {
        do {
            return try HTTP1ContentEncoder.compress(data, as: format, level: level)
        } catch {
            XCTFail("compressing failed: \(error)", file: file, line: line)
            throw error
        }
    }

    /// `count` bytes of text that compresses well but not trivially: words from a small
    /// vocabulary, picked by a seeded generator so that every run sees the same bytes.
    static func text(count: Int, seed: UInt64 = 1) -> Data {
        let words = ["proxy", "gzip", "deflate", "member", "trailer", "window", "Huffman", "block", "stream", "\n"]
        var generator = SeededGenerator(seed: seed)
        var text = Data()
        while text.count < count {
            text.append(contentsOf: words[Int(generator.next() % UInt64(words.count))].utf8)
            text.append(UInt8(ascii: " "))
        }
        return text.prefix(count)
    }

    /// `count` bytes from a seeded generator: data that does not compress.
    static func noise(count: Int, seed: UInt64 = 2) -> Data {
        var generator = SeededGenerator(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    /// SplitMix64: a small deterministic generator, so that fuzzing is the same on every run.
    struct SeededGenerator: RandomNumberGenerator {
        /// The generator's state.
        private var state: UInt64

        /// A generator starting from `seed`.
        init(seed: UInt64) { state = seed }

        /// The next 64 random bits.
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}
