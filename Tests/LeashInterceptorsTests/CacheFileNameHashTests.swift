import Foundation
import XCTest

@testable import LeashInterceptors

/// The disk store's file names are SHA-256 digests: checked against the standard's
/// test vectors (FIPS 180-4 examples), including a message spanning two blocks.
final class CacheFileNameHashTests: XCTestCase {
    func testSHA256_matchesTheStandardsVectors() {
        XCTAssertEqual(
            SHA256.hexDigest(Array("".utf8)), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(
            SHA256.hexDigest(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000)),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    func testDiskStoreFileName_isTheDigestOfTheKey() {
        let key = CacheKey(method: "GET", location: "https://h/x", query: "a=1")
        let store = DiskDataStore(directory: URL(fileURLWithPath: "/tmp/unused"))
        XCTAssertEqual(
            store.fileURL(for: key).lastPathComponent,
            SHA256.hexDigest(Array("GET https://h/x?a=1".utf8)) + ".leashcache")
    }
}
