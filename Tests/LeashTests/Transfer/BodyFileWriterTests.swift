import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a download's body goes into its file: resumed on a matching 206, started over
/// otherwise, and a full disk reported as `LeashError.fileAccess`.
final class BodyFileWriterTests: XCTestCase {
    private var file: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        file = FileManager.default.temporaryDirectory.appendingPathComponent("leash-writer-\(UUID())")
        try Data("0123456789".utf8).write(to: file)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: file)
        super.tearDown()
    }

    private func head(_ status: Int, _ headers: [String: String] = [:]) throws -> HTTPURLResponse {
        try XCTUnwrap(
            HTTPURLResponse(
                url: URL(string: "http://example.com/f")!, statusCode: status, httpVersion: "HTTP/1.1",
                headerFields: headers))
    }

    func testMatching206_appendsAfterTheBytesAlreadyThere() throws {
        let writer = try BodyFileWriter(
            url: file, head: head(206, ["Content-Range": "bytes 10-14/15"]), requestedOffset: 10)
        try writer.write(Data("abcde".utf8))
        try writer.close()
        XCTAssertEqual(writer.startOffset, 10)
        XCTAssertEqual(String(decoding: try Data(contentsOf: file), as: UTF8.self), "0123456789abcde")
    }

    func testA200_startsTheFileOver() throws {
        let writer = try BodyFileWriter(url: file, head: head(200), requestedOffset: 10)
        try writer.write(Data("new".utf8))
        try writer.close()
        XCTAssertEqual(String(decoding: try Data(contentsOf: file), as: UTF8.self), "new")
    }

    func testA206ForAnotherOffset_isRefused_andTheFileIsLeftAsItWas() throws {
        XCTAssertThrowsError(
            try BodyFileWriter(url: file, head: head(206, ["Content-Range": "bytes 4-14/15"]), requestedOffset: 10)
        ) { error in
            guard case .invalidResponse(let reason)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("bytes 4-14/15"), reason)
        }
        XCTAssertEqual(String(decoding: try Data(contentsOf: file), as: UTF8.self), "0123456789")
    }

    func testFullDisk_isAFileAccessErrorSayingSo() throws {
        // /dev/full fails every write with ENOSPC, as a full disk does.
        let full = URL(fileURLWithPath: "/dev/full")
        guard FileManager.default.isWritableFile(atPath: full.path) else { throw XCTSkip("no /dev/full here") }
        let writer = try BodyFileWriter(url: full, head: head(200), requestedOffset: 0)
        XCTAssertThrowsError(try writer.write(Data(repeating: 1, count: 64 * 1024))) { error in
            guard case .fileAccess(let reason, let url, let underlying)? = error as? LeashError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(url, full)
            XCTAssertTrue(reason.contains("disk full"), reason)
            XCTAssertNotNil(underlying, "the system's error is kept")
        }
        writer.abandon()
    }

    func testMissingFile_cannotBeOpened() throws {
        let missing = file.appendingPathExtension("missing")
        XCTAssertThrowsError(try BodyFileWriter(url: missing, head: head(200), requestedOffset: 0)) { error in
            guard case .fileAccess(_, let url, _)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertEqual(url, missing)
        }
    }
}
