import Foundation
import LeashDigest
import XCTest

@testable import LoopbackServer

/// The streaming multipart parser fed in pieces split at every possible place.
final class MultipartFormParserTests: XCTestCase {
    private let body = Array(
        ("ignored\r\n--sep\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nline one\r\nline two"
            + "\r\n--sep  \r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n\r\n--se\r\nx--sep\r\n-\r"
            + "\r\n--sep\r\nContent-Disposition: form-data; name=\"none\"\r\n\r\n"
            + "\r\n--sep--\r\nignored too").utf8)

    private var expected: [LoopbackServer.ReceivedMultipart.Part] {
        let file = "\r\n--se\r\nx--sep\r\n-\r"
        return [
            .init(
                name: "text", fileName: nil, contentType: nil, bytes: 18,
                sha256: SHA256.hexDigest("line one\r\nline two".utf8),
                value: "line one\r\nline two"),
            .init(
                name: "file", fileName: "f.bin", contentType: "application/octet-stream", bytes: file.utf8.count,
                sha256: SHA256.hexDigest(file.utf8), value: nil),
            .init(name: "none", fileName: nil, contentType: nil, bytes: 0, sha256: SHA256.hexDigest(Data()), value: ""),
        ]
    }

    func testWholeBody_givesEveryPart() throws {
        XCTAssertEqual(try parse([body[...]]), expected)
    }

    func testBodySplitInTwoAtEveryPlace_givesTheSameParts() throws {
        for split in 0...body.count {
            XCTAssertEqual(try parse([body[..<split], body[split...]]), expected, "split at \(split)")
        }
    }

    func testBodyFedByteByByte_givesTheSameParts() throws {
        XCTAssertEqual(try parse(body.indices.map { body[$0...$0] }), expected)
    }

    func testBoundaryParameter_isReadFromTheContentType() throws {
        XCTAssertEqual(try MultipartFormParser.boundary(ofContentType: "multipart/form-data; boundary=abc"), "abc")
        XCTAssertEqual(try MultipartFormParser.boundary(ofContentType: "Multipart/Form-Data;boundary=\"a;b\""), "a;b")
        XCTAssertThrowsError(try MultipartFormParser.boundary(ofContentType: nil))
        XCTAssertThrowsError(try MultipartFormParser.boundary(ofContentType: "multipart/mixed; boundary=a"))
    }

    private func parse(_ pieces: [ArraySlice<UInt8>]) throws -> [LoopbackServer.ReceivedMultipart.Part] {
        var parser = MultipartFormParser(boundary: "sep")
        for piece in pieces {
            try piece.withUnsafeBytes { try parser.feed($0) }
        }
        return try parser.finish()
    }
}
