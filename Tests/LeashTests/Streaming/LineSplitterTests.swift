import Foundation
import XCTest

@testable import Leash

/// The line splitter of newline-delimited bodies: LF and CRLF end lines, a lone CR does not,
/// lines are joined across chunks, and an unended line cannot grow past the limit.
final class LineSplitterTests: XCTestCase {
    func testLineFeeds_endLines() throws {
        let (lines, last, count) = try split(["a\nbc\n"])
        XCTAssertEqual(lines, ["a", "bc"])
        XCTAssertNil(last)
        XCTAssertEqual(count, 2)
    }

    func testCarriageReturnLineFeed_endsALine_withoutItsCarriageReturn() throws {
        XCTAssertEqual(try split(["a\r\nbc\r\n"]).lines, ["a", "bc"])
    }

    func testLoneCarriageReturn_isKeptInsideTheLine() throws {
        XCTAssertEqual(try split(["a\rb\n\r\r\n"]).lines, ["a\rb", "\r"])
    }

    func testCarriageReturnEndingAChunk_beforeALineFeedOpeningTheNext_isRemoved() throws {
        XCTAssertEqual(try split(["a\r", "\nb\r", "c\n"]).lines, ["a", "b\rc"])
    }

    func testEmptyAndWhitespaceLines_areHandedOut() throws {
        let (lines, _, count) = try split(["\n\n  \n\r\n\t\n"])
        XCTAssertEqual(lines, ["", "", "  ", "", "\t"])
        XCTAssertEqual(count, 5)
    }

    func testLastLineWithoutTerminator_comesFromFinish() throws {
        let (lines, last, count) = try split(["a\n", "b"])
        XCTAssertEqual(lines, ["a"])
        XCTAssertEqual(last, "b")
        XCTAssertEqual(count, 2)
        // A CR no LF followed stays in the line.
        XCTAssertEqual(try split(["a\nb\r"]).last, "b\r")
        XCTAssertNil(try split(["a\n", ""]).last)
    }

    func testLineSplitAcrossManyChunks_isJoined() throws {
        let long = (0..<1000).map { String($0 % 10) }.joined()
        let text = "first\n" + long + "\r\nlast\n"
        let chunks = stride(from: 0, to: text.utf8.count, by: 7).map { start in
            String(decoding: Array(text.utf8)[start..<min(start + 7, text.utf8.count)], as: UTF8.self)
        }
        XCTAssertEqual(try split(chunks).lines, ["first", long, "last"])
    }

    func testEverySplitAndByteByByte_giveTheSameLines() throws {
        let text = Array("{\"a\":1}\r\n\nb\rc\n  \né😀\r\nend".utf8)
        let expected = ["{\"a\":1}", "", "b\rc", "  ", "é😀"]
        for offset in 0...text.count {
            let result = try split(bytes: [Array(text[..<offset]), Array(text[offset...])])
            XCTAssertEqual(result.lines, expected, "split at \(offset)")
            XCTAssertEqual(result.last, "end", "split at \(offset)")
            XCTAssertEqual(result.count, 6, "split at \(offset)")
        }
        let result = try split(bytes: text.map { [$0] })
        XCTAssertEqual(result.lines, expected)
        XCTAssertEqual(result.last, "end")
    }

    func testLines_ofAChunkThatIsASlice_areItsOwnBytes() throws {
        // A chunk whose indices do not start at 0, and lines that are slices of it.
        let whole = Data("skip|a\nbc\nd".utf8)
        let chunk = whole[5...]
        var splitter = LineSplitter()
        var lines: [[UInt8]] = []
        try splitter.append(chunk) { lines.append(Array($0)) }
        XCTAssertEqual(lines, [Array("a".utf8), Array("bc".utf8)])
        XCTAssertEqual(splitter.finish().map { Array($0) }, Array("d".utf8))
    }

    func testLineLongerThanTheLimit_throws_withItsNumber_whereverTheChunksSplitIt() {
        // "12345" is 5 bytes: allowed; "123456" is not, nor "12345\r" (the CR before the LF counts).
        for text in ["ok\n12345\n123456\n", "ok\n12345\n12345\r\n"] {
            let bytes = Array(text.utf8)
            for offset in 0...bytes.count {
                var splitter = LineSplitter(maximumLineLength: 5)
                var lines: [String] = []
                assertInvalidResponse(reasonContains: "line 3 exceeded 5 bytes without a line end") {
                    for part in [bytes[..<offset], bytes[offset...]] {
                        try splitter.append(Data(part)) { lines.append(String(decoding: $0, as: UTF8.self)) }
                    }
                }
                XCTAssertEqual(lines, ["ok", "12345"], "\(text.debugDescription) split at \(offset)")
                XCTAssertLessThanOrEqual(splitter.bufferedByteCount, 5)
            }
        }
    }

    func testUnendedLine_neverBuffersMoreThanTheLimit() {
        var splitter = LineSplitter(maximumLineLength: 10)
        var fed = 0
        assertInvalidResponse(reasonContains: "line 1 exceeded 10 bytes") {
            for _ in 0..<1000 {
                try splitter.append(Data("abc".utf8)) { _ in XCTFail("no line") }
                fed += 3
                XCTAssertLessThanOrEqual(splitter.bufferedByteCount, 10)
            }
        }
        // Three chunks (9 bytes) fit; the fourth would make 12.
        XCTAssertEqual(fed, 9)
        XCTAssertEqual(splitter.bufferedByteCount, 9)
    }

    // MARK: Helpers

    /// The lines a new splitter hands out from `chunks`, what `finish()` returns, and the
    /// line count after it.
    private func split(_ chunks: [String]) throws -> (lines: [String], last: String?, count: Int) {
        try split(bytes: chunks.map { Array($0.utf8) })
    }

    /// The lines a new splitter hands out from `chunks`, what `finish()` returns, and the
    /// line count after it.
    private func split(bytes chunks: [[UInt8]]) throws -> (lines: [String], last: String?, count: Int) {
        var splitter = LineSplitter()
        var lines: [String] = []
        for chunk in chunks {
            try splitter.append(Data(chunk)) { lines.append(String(decoding: $0, as: UTF8.self)) }
            XCTAssertEqual(splitter.lineCount, lines.count)
        }
        let last = splitter.finish().map { String(decoding: $0, as: UTF8.self) }
        return (lines, last, splitter.lineCount)
    }

    /// Asserts that `body` throws `LeashError.invalidResponse` whose reason contains `text`.
    private func assertInvalidResponse(
        reasonContains text: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
    ) {
        do {
            try body()
            XCTFail("expected LeashError.invalidResponse", file: file, line: line)
        } catch LeashError.invalidResponse(let reason) {
            XCTAssertTrue(reason.contains(text), reason, file: file, line: line)
        } catch {
            XCTFail("expected LeashError.invalidResponse, got \(error)", file: file, line: line)
        }
    }
}
