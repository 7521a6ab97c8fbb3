import Foundation
import XCTest

@testable import Leash

/// Text lines are validated as UTF-8 the way `String(validating:as:)` does (which needs
/// macOS 15 / iOS 18, above the package's minimums): well-formed bytes come back unchanged,
/// every ill-formed sequence is a decoding failure, and nothing is repaired or dropped.
final class LineDecodingTests: XCTestCase {
    func testText_wellFormedLines_comeBackByteForByte() throws {
        let lines: [[UInt8]] = [
            [],
            Array("plain ascii {\"index\":1}".utf8),
            Array("Zoë, 日本語, 😀".utf8),
            [0x00, 0x41, 0x00],  // NUL is a character like any other
            [0xEF, 0xBB, 0xBF, 0x41],  // a byte-order mark is kept, not skipped
            [0xEF, 0xBF, 0xBD],  // U+FFFD in the line itself is well-formed
            [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF, the last scalar
        ]
        for bytes in lines {
            let text = try XCTUnwrap(LineDecoders.text(Data(bytes), 1), "\(bytes)")
            XCTAssertEqual(Array(text.utf8), bytes)
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                XCTAssertEqual(text, String(validating: bytes, as: UTF8.self), "the reference agrees")
            }
        }
    }

    func testText_illFormedLines_areDecodingFailures() {
        let lines: [[UInt8]] = [
            [0x66, 0xFF],  // a byte that never occurs in UTF-8
            [0xE2, 0x82],  // a sequence cut short
            [0xF0, 0x9F, 0x98],  // cut short, as long as the U+FFFD that would replace it
            [0xC0, 0xAF],  // overlong
            [0xED, 0xA0, 0x80],  // a surrogate
            [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
            [0x41, 0x80, 0x42],  // a lone continuation byte
        ]
        for bytes in lines {
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                XCTAssertNil(String(validating: bytes, as: UTF8.self), "the reference agrees: \(bytes)")
            }
            XCTAssertThrowsError(try LineDecoders.text(Data(bytes), 4), "\(bytes)") { error in
                guard case .decoding(let type, _, _)? = error as? LeashError else {
                    return XCTFail("expected a decoding failure, got \(error)")
                }
                XCTAssertTrue(type.contains("line 4"), type)
            }
        }
    }

    func testText_aLineInsideALargerBuffer_isValidatedAlone() throws {
        let buffer = Data("xx{\"a\":\"é\"}yy".utf8)
        let line = buffer.dropFirst(2).dropLast(2)
        XCTAssertEqual(try LineDecoders.text(line, 1), "{\"a\":\"é\"}")
    }
}
