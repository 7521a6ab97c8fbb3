import XCTest

@testable import Leash

/// The platform values `URLSessionTransport` branches on, and what follows from them.
final class URLSessionPlatformTests: XCTestCase {
    /// The values of this build: Linux's own, Linux taking Apple platforms' branches
    /// (`-DLEASH_APPLE_BRANCHES`, a CI step), or an Apple platform's.
    func testCurrent_matchesTheBuild() {
        let platform = URLSessionPlatform.current
        #if canImport(FoundationNetworking) && !LEASH_APPLE_BRANCHES
            XCTAssertTrue(platform.sharesOneWorkQueue)
            XCTAssertTrue(platform.streamsUploadFiles)
            XCTAssertFalse(platform.expiresCookies)
        #elseif canImport(FoundationNetworking)
            XCTAssertFalse(platform.sharesOneWorkQueue)
            XCTAssertTrue(platform.streamsUploadFiles, "uploadTask(fromFile:) crashes on Linux: never taken there")
            XCTAssertFalse(platform.expiresCookies, "FoundationNetworking ignores Max-Age: never taken there")
        #else
            XCTAssertFalse(platform.sharesOneWorkQueue)
            XCTAssertFalse(platform.streamsUploadFiles)
            XCTAssertTrue(platform.expiresCookies)
        #endif
    }

    /// Where every session shares one work queue, a stuck subscriber may hold it for half a
    /// second at most; elsewhere it holds its own session back as long as it needs.
    func testSlowSubscriberDefault_followsTheWorkQueue() {
        let policy = SlowSubscriberPolicy.platformDefault
        if URLSessionPlatform.current.sharesOneWorkQueue {
            XCTAssertEqual(policy.longestHold, 0.5)
        } else {
            XCTAssertNil(policy.longestHold)
        }
        XCTAssertEqual(policy.bufferLimit, 1 << 20)
    }
}
