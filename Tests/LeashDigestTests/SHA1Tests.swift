import Foundation
import LeashDigest
import XCTest

/// SHA-1 against the standard's test vectors (FIPS 180-4 examples and the NIST long
/// messages), one shot and fed in pieces; and the WebSocket accept value built on it.
final class SHA1Tests: XCTestCase {
    private static let vectors: [(message: String, hex: String)] = [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
    ]

    func testOneShot_matchesTheStandardsVectors() {
        for (message, hex) in Self.vectors {
            XCTAssertEqual(SHA1.hexDigest(message.utf8), hex, message)
            XCTAssertEqual(SHA256.hexString(SHA1.digest(Array(message.utf8))), hex, message)
            var hasher = SHA1()
            hasher.update(Data(message.utf8))
            XCTAssertEqual(hasher.finalizeHex(), hex, message)
        }
        XCTAssertEqual(SHA1.digest(Data()).count, SHA1.digestByteCount)
    }

    func testOneMillionA_oneShotAndFedInUnevenPieces() {
        let expected = "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(SHA1.hexDigest(message), expected)
        var hasher = SHA1()
        var offset = 0
        var pieceSizes = [1, 63, 64, 65, 127, 128, 129, 0, 4096, 55, 56, 57, 1000].makeIterator()
        while offset < message.count {
            let size = min(pieceSizes.next() ?? 4099, message.count - offset)
            message[offset..<offset + size].withUnsafeBytes { hasher.update($0) }
            offset += size
        }
        XCTAssertEqual(hasher.finalizeHex(), expected)
    }

    func testMessageSplitAtEveryPoint_givesTheSameDigest() {
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let expected = SHA1.hexDigest(message)
        for first in [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 500, 999, 1000] {
            for second in [first, min(first + 1, 1000), min(first + 64, 1000), 1000] {
                var hasher = SHA1()
                hasher.update(Data(message[..<first]))
                hasher.update(message[first..<second])
                message[second...].withUnsafeBytes { hasher.update($0) }
                XCTAssertEqual(hasher.finalizeHex(), expected, "split at \(first) and \(second)")
            }
        }
    }

    func testFinalize_leavesTheHasherUsable() {
        var hasher = SHA1()
        hasher.update(Data("ab".utf8))
        XCTAssertEqual(hasher.finalizeHex(), SHA1.hexDigest("ab".utf8))
        hasher.update(Data("c".utf8))
        XCTAssertEqual(hasher.finalizeHex(), "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    func testWebSocketAccept_matchesTheRFC6455Example() {
        // RFC 6455 §1.3.
        XCTAssertEqual(WebSocketAccept.value(forKey: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
