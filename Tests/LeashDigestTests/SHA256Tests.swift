import Foundation
import LeashDigest
import XCTest

/// SHA-256 against the standard's test vectors (FIPS 180-4 examples and the NIST long
/// messages), one shot and fed in pieces split at awkward places.
final class SHA256Tests: XCTestCase {
    private static let vectors: [(message: String, hex: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ]

    func testOneShot_matchesTheStandardsVectors() {
        for (message, hex) in Self.vectors {
            XCTAssertEqual(SHA256.hexDigest(message.utf8), hex, message)
            XCTAssertEqual(SHA256.hexDigest(Data(message.utf8)), hex, message)
            XCTAssertEqual(SHA256.hexString(SHA256.digest(Array(message.utf8))), hex, message)
        }
        XCTAssertEqual(SHA256.digest(Data()).count, SHA256.digestByteCount)
    }

    func testOneMillionA_fedInUnevenPieces() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(SHA256.hexDigest(message), expected)
        var hasher = SHA256()
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
        // 1,000 bytes of (i * 7 + 3) % 256; the digest is Python's hashlib's.
        let message = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let expected = "1e9bc38cbf860b9ec31918b065f9b52476c549a782e0e7990bed8ce3868d2371"
        XCTAssertEqual(SHA256.hexDigest(message), expected)
        for first in [0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 500, 999, 1000] {
            for second in [first, min(first + 1, 1000), min(first + 64, 1000), 1000] {
                var hasher = SHA256()
                hasher.update(Data(message[..<first]))
                hasher.update(message[first..<second])
                message[second...].withUnsafeBytes { hasher.update($0) }
                XCTAssertEqual(hasher.finalizeHex(), expected, "split at \(first) and \(second)")
            }
        }
    }

    func testFinalize_leavesTheHasherUsable() {
        var hasher = SHA256()
        hasher.update(Data("ab".utf8))
        XCTAssertEqual(hasher.finalizeHex(), SHA256.hexDigest("ab".utf8))
        hasher.update(Data("c".utf8))
        XCTAssertEqual(hasher.finalizeHex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testHexString_isLowercaseTwoDigitsPerByte() {
        XCTAssertEqual(SHA256.hexString([0x00, 0x0F, 0xA0, 0xFF]), "000fa0ff")
        XCTAssertEqual(SHA256.hexString([UInt8]()), "")
    }
}
