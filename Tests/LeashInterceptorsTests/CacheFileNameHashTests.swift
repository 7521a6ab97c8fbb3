import Foundation
import LeashDigest
import XCTest

@testable import LeashInterceptors

/// The disk store's file names are SHA-256 digests of the keys (the digest itself is
/// checked in `LeashDigestTests`).
final class CacheFileNameHashTests: XCTestCase {
    func testDiskStoreFileName_isTheDigestOfTheKey() {
        let key = CacheKey(method: "GET", location: "https://h/x", query: "a=1")
        let store = DiskDataStore(directory: URL(fileURLWithPath: "/tmp/unused"))
        XCTAssertEqual(
            store.fileURL(for: key).lastPathComponent,
            SHA256.hexDigest("GET https://h/x?a=1".utf8) + ".leashcache")
        XCTAssertEqual(
            store.fileURL(for: key).lastPathComponent,
            "fd4ce88dd9ffd6a7f17ad5b35af69b748c7669388f1a28fb7449cce553f096e6.leashcache")
    }
}
