import Leash
import XCTest

/// The incremental UTF-8 validator (named for the WebSocket suite it belongs to) on the cases
/// Autobahn's section 6 sends.
final class WebSocketIncrementalUTF8ValidatorTests: XCTestCase {
    /// Validates `bytes` in one go; returns the failure offset, or -1 for a text cut short.
    private func failure(_ bytes: [UInt8]) -> Int? {
        var validator = IncrementalUTF8Validator()
        if let offset = validator.validate(bytes) { return offset }
        return validator.isAtCharacterBoundary ? nil : -1
    }

    /// One to four byte sequences at the edges of their ranges are all valid.
    func testValidate_acceptsValidMultiByteText() {
        let texts = [
            "", "Hello", "κόσμε", "€", "\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}",
            "\u{10000}\u{10FFFF}", "Hello-µ@ßöäüàá-UTF-8!!", "🌍",
        ]
        for text in texts {
            XCTAssertNil(failure(Array(text.utf8)), text)
        }
    }

    /// Overlong forms fail at the byte that shows they are overlong.
    func testValidate_rejectsOverlongForms() {
        XCTAssertEqual(failure([0xC0, 0x80]), 0)
        XCTAssertEqual(failure([0xC1, 0xBF]), 0)
        XCTAssertEqual(failure([0xE0, 0x80, 0xAF]), 1)
        XCTAssertEqual(failure([0xE0, 0x9F, 0xBF]), 1)
        XCTAssertEqual(failure([0xF0, 0x80, 0x80, 0xAF]), 1)
        XCTAssertEqual(failure([0xF0, 0x8F, 0xBF, 0xBF]), 1)
    }

    /// UTF-16 surrogates U+D800–U+DFFF have no UTF-8 form.
    func testValidate_rejectsSurrogates() {
        XCTAssertEqual(failure([0xED, 0xA0, 0x80]), 1)
        XCTAssertEqual(failure([0xED, 0xBF, 0xBF]), 1)
        XCTAssertNil(failure([0xED, 0x9F, 0xBF]), "U+D7FF is just below the surrogates")
    }

    /// Nothing above U+10FFFF.
    func testValidate_rejectsCodePointsAboveU10FFFF() {
        XCTAssertEqual(failure([0xF4, 0x90, 0x80, 0x80]), 1)
        XCTAssertEqual(failure([0xF5, 0x80, 0x80, 0x80]), 0)
        XCTAssertEqual(failure([0xFF]), 0)
        XCTAssertNil(failure([0xF4, 0x8F, 0xBF, 0xBF]), "U+10FFFF itself")
    }

    /// Stray continuations and a lead byte followed by no continuation fail.
    func testValidate_rejectsBrokenSequences() {
        XCTAssertEqual(failure([0x41, 0x80]), 1)
        XCTAssertEqual(failure([0xC2, 0x41]), 1)
        XCTAssertEqual(failure([0xE2, 0x82, 0x41]), 2)
    }

    /// A sequence cut at the end is not a failure yet, but is not at a character boundary.
    func testValidate_reportsAnIncompleteTrailingSequence() {
        XCTAssertEqual(failure([0x41, 0xE2, 0x82]), -1)
        XCTAssertEqual(failure([0xF0, 0x9F, 0x8C]), -1)
    }

    /// A sequence split at every possible point across chunks is accepted.
    func testValidate_acceptsSequencesSplitAcrossChunks() {
        let bytes = Array("a€🌍κ".utf8)
        for cut in 0...bytes.count {
            for secondCut in cut...bytes.count {
                var validator = IncrementalUTF8Validator()
                XCTAssertNil(validator.validate(bytes[..<cut]))
                XCTAssertNil(validator.validate(bytes[cut..<secondCut]))
                XCTAssertNil(validator.validate(bytes[secondCut...]))
                XCTAssertTrue(validator.isAtCharacterBoundary, "cuts \(cut), \(secondCut)")
            }
        }
    }

    /// The failure is reported in the chunk holding the bad byte, at its offset from the start of
    /// the whole text, and every later chunk fails too.
    func testValidate_failsFastAtTheOffsetInTheWholeText() {
        var validator = IncrementalUTF8Validator()
        XCTAssertNil(validator.validate(Array("κόσμε".utf8)))
        XCTAssertNil(validator.validate([0xED]))
        XCTAssertEqual(validator.validate([0xA0, 0x80, 0x41, 0x41]), 11)
        XCTAssertEqual(validator.validate(Array("fine".utf8)), 11)
        XCTAssertFalse(validator.isAtCharacterBoundary)
    }
}
