import Foundation
import XCTest

@testable import Leash

/// The event stream parser against the HTML Living Standard's "Server-sent events" section:
/// its examples, its line ends, its fields, its decoding, split at every byte.
final class ServerSentEventParserTests: XCTestCase {
    // MARK: The standard's examples

    /// 9.2.1: three messages, the second with two data lines.
    func testIntroductionExample_threeMessages() {
        let stream = """
            data: This is the first message.

            data: This is the second message, it
            data: has two lines.

            data: This is the third message.


            """
        assertEventsInEveryLineEndAndSplit(
            stream,
            [
                ServerSentEvent(data: "This is the first message."),
                ServerSentEvent(data: "This is the second message, it\nhas two lines."),
                ServerSentEvent(data: "This is the third message."),
            ])
    }

    /// 9.2.1: two event types, "add" and "remove".
    func testIntroductionExample_eventTypes() {
        let stream = """
            event: add
            data: 73857293

            event: remove
            data: 2153

            event: add
            data: 113411


            """
        assertEventsInEveryLineEndAndSplit(
            stream,
            [
                ServerSentEvent(event: "add", data: "73857293"),
                ServerSentEvent(event: "remove", data: "2153"),
                ServerSentEvent(event: "add", data: "113411"),
            ])
    }

    /// 9.2.6, the stock ticker: "YHOO\n+2\n10" once followed by a blank line.
    func testStockExample_dataLinesJoinedWithLineFeeds() {
        assertEventsInEveryLineEndAndSplit(
            "data: YHOO\ndata: +2\ndata: 10\n\n", [ServerSentEvent(data: "YHOO\n+2\n10")])
        // Not yet followed by a blank line: nothing is dispatched.
        assertEventsInEveryLineEndAndSplit("data: YHOO\ndata: +2\ndata: 10\n", [])
    }

    /// 9.2.6, four blocks: a comment fires nothing; "first event" sets the last event ID to
    /// "1"; an `id` without value resets it; " third event" keeps one of its two spaces.
    func testFourBlocksExample_commentIDResetAndSpace() throws {
        let stream = """
            : test stream

            data: first event
            id: 1

            data:second event
            id

            data:  third event


            """
        assertEventsInEveryLineEndAndSplit(
            stream,
            [
                ServerSentEvent(id: "1", data: "first event"),
                ServerSentEvent(id: nil, data: "second event"),
                ServerSentEvent(id: nil, data: " third event"),
            ])
        var parser = ServerSentEventParser()
        try parser.parse(Data(stream.utf8)) { _ in }
        XCTAssertEqual(parser.lastEventID, "")
        // "The end of the stream is not enough to trigger the dispatch of the last event."
        let unended = stream.dropLast(2)
        assertEventsInEveryLineEndAndSplit(
            String(unended),
            [ServerSentEvent(id: "1", data: "first event"), ServerSentEvent(id: nil, data: "second event")])
    }

    /// 9.2.6: "data" alone fires the empty string, "data" twice a single newline, and the last
    /// block, not followed by a blank line, is discarded.
    func testTwoEventsExample_emptyDataAndNewline() {
        assertEventsInEveryLineEndAndSplit(
            "data\n\ndata\ndata\n\ndata:", [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        // "…as would the last block if it was followed by a blank line."
        assertEventsInEveryLineEndAndSplit(
            "data\n\ndata\ndata\n\ndata:\n\n",
            [ServerSentEvent(data: ""), ServerSentEvent(data: "\n"), ServerSentEvent(data: "")])
    }

    /// 9.2.6: "data:test" and "data: test" fire identical events (one space after the colon is
    /// ignored).
    func testTwoIdenticalEventsExample_spaceAfterColonIgnored() {
        assertEventsInEveryLineEndAndSplit(
            "data:test\n\ndata: test\n\n", [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    // MARK: Line ends

    func testMixedLineEnds_allEndLines() throws {
        let events = try parse(["data: a\rdata: b\r\ndata: c\n\r\n"])
        XCTAssertEqual(events, [ServerSentEvent(data: "a\nb\nc")])
    }

    func testTwoCarriageReturns_areTwoLineEnds() throws {
        XCTAssertEqual(try parse(["data: a\r\rdata: b\r\r"]), [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")])
    }

    func testCarriageReturnEndingAChunk_andLineFeedOpeningTheNext_areOneLineEnd() throws {
        // Were the LF a second line end, it would be a blank line dispatching "a" alone.
        XCTAssertEqual(try parse(["data: a\r", "\ndata: b\r\n\r", "\n"]), [ServerSentEvent(data: "a\nb")])
    }

    func testCarriageReturnEndingAChunk_thenAnEmptyChunk_stillJoinsTheLineFeed() throws {
        XCTAssertEqual(try parse(["data: a\r", "", "\ndata: b\n\n"]), [ServerSentEvent(data: "a\nb")])
    }

    func testCarriageReturnEndingAChunk_withoutLineFeedAfter_endsTheLineAlone() throws {
        XCTAssertEqual(try parse(["data: a\r", "data: b\r", "\r"]), [ServerSentEvent(data: "a\nb")])
    }

    // MARK: Byte order mark

    func testByteOrderMarkAtTheStart_isSkipped_wholeOrSplit() {
        // Were it kept, the first field would be named "\u{FEFF}data" and ignored.
        assertEventsInEverySplit(bytes("\u{FEFF}data: a\n\n"), [ServerSentEvent(data: "a")])
    }

    func testByteOrderMarkAfterTheFirst_isKept() {
        // Only one is stripped: the second makes the field's name "\u{FEFF}data", ignored.
        assertEventsInEverySplit(bytes("\u{FEFF}\u{FEFF}data: x\ndata: a\n\n"), [ServerSentEvent(data: "a")])
        assertEventsInEverySplit(bytes("data: a\n\u{FEFF}data: b\n\n"), [ServerSentEvent(data: "a")])
        assertEventsInEverySplit(bytes("data: \u{FEFF}a\n\n"), [ServerSentEvent(data: "\u{FEFF}a")])
    }

    func testBeginningOfAByteOrderMark_isKeptAsTheFirstLinesBytes() throws {
        // EF BB then "data": the two bytes stay in the field's name, which is then no "data".
        assertEventsInEverySplit([0xEF, 0xBB] + bytes("data: a\n\n"), [])
        assertEventsInEverySplit([0xEF] + bytes("data: a\n\n"), [])
        var parser = ServerSentEventParser()
        try parser.parse(Data([0xEF, 0xBB])) { _ in XCTFail("no event") }
        XCTAssertEqual(parser.bufferedByteCount, 0, "still possibly a byte order mark")
        try parser.parse(Data("x".utf8)) { _ in XCTFail("no event") }
        XCTAssertEqual(parser.bufferedByteCount, 3, "EF BB and x, all of the first line")
    }

    func testFinish_startsANewStream_whichMayBeginWithAByteOrderMark() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("id: 9\nretry: 250\ndata: a\n\n".utf8)) { events.append($0) }
        parser.finish()
        try parser.parse(Data("\u{FEFF}data: b\n\n".utf8)) { events.append($0) }
        XCTAssertEqual(
            events, [ServerSentEvent(id: "9", data: "a", retry: 250), ServerSentEvent(id: "9", data: "b")])
        XCTAssertEqual(parser.lastEventID, "9")
        XCTAssertEqual(parser.reconnectionTime, 250)
    }

    // MARK: Fields

    func testIDWithNull_isIgnored() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("id: 1\ndata: a\n\nid: 2\u{0}\ndata: b\n\n".utf8)) { events.append($0) }
        XCTAssertEqual(events, [ServerSentEvent(id: "1", data: "a"), ServerSentEvent(id: "1", data: "b")])
        XCTAssertEqual(parser.lastEventID, "1")
    }

    func testEmptyID_resetsTheLastEventID() throws {
        var parser = ServerSentEventParser(lastEventID: "0")
        var events: [ServerSentEvent] = []
        try parser.parse(Data("data: a\n\nid: 1\ndata: b\n\nid:\ndata: c\n\nid: 2\n\nid\ndata: d\n\n".utf8)) {
            events.append($0)
        }
        XCTAssertEqual(
            events,
            [
                ServerSentEvent(id: "0", data: "a"), ServerSentEvent(id: "1", data: "b"),
                ServerSentEvent(id: nil, data: "c"), ServerSentEvent(id: nil, data: "d"),
            ])
        XCTAssertEqual(parser.lastEventID, "")
    }

    func testID_persistsAcrossEvents_evenThroughABlockWithoutData() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("id: 7\ndata: a\n\ndata: b\n\nid: 8\n\ndata: c\n\n".utf8)) { events.append($0) }
        XCTAssertEqual(
            events,
            [
                ServerSentEvent(id: "7", data: "a"), ServerSentEvent(id: "7", data: "b"),
                ServerSentEvent(id: "8", data: "c"),
            ])
        XCTAssertEqual(parser.lastEventID, "8")
    }

    func testID_keepsEverythingButOneLeadingSpace() throws {
        XCTAssertEqual(try parse(["id:  a b \ndata: x\n\n"]), [ServerSentEvent(id: " a b ", data: "x")])
    }

    func testRetry_digitsSetTheReconnectionTime_andTheirBlocksEvent() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("retry: 3000\ndata: a\n\ndata: b\n\nretry: 0\n\ndata: c\n\n".utf8)) {
            events.append($0)
        }
        XCTAssertEqual(
            events,
            [
                ServerSentEvent(data: "a", retry: 3000), ServerSentEvent(data: "b"), ServerSentEvent(data: "c"),
            ])
        XCTAssertEqual(parser.reconnectionTime, 0, "a block without data still sets the reconnection time")
    }

    func testRetry_notOnlyDigits_orOverflowing_isIgnored() throws {
        for value in ["3s", "-1", "+5", " 5", "1.5", "", "99999999999999999999999", "12 "] {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            try parser.parse(Data("retry: 100\n\nretry: \(value)\ndata: a\n\n".utf8)) { events.append($0) }
            XCTAssertEqual(events, [ServerSentEvent(data: "a")], "retry: \(value)")
            XCTAssertEqual(parser.reconnectionTime, 100, "retry: \(value)")
        }
        var parser = ServerSentEventParser()
        try parser.parse(Data("retry:\(Int.max)\n\n".utf8)) { _ in }
        XCTAssertEqual(parser.reconnectionTime, Int.max)
    }

    func testRetry_lastValidValueOfABlockWins() throws {
        XCTAssertEqual(
            try parse(["retry: 10\nretry: 20\nretry: x\ndata: a\n\n"]), [ServerSentEvent(data: "a", retry: 20)])
    }

    func testFieldWithoutColon_isTheWholeLineWithAnEmptyValue() throws {
        // "event" with an empty value leaves the type "message"; "data" appends an empty line.
        XCTAssertEqual(
            try parse(["event: add\nevent\ndata: a\ndata\n\n"]), [ServerSentEvent(event: "message", data: "a\n")])
    }

    func testEventType_resetsAfterEachDispatch_andAfterABlockWithoutData() throws {
        XCTAssertEqual(
            try parse(["event: add\ndata: 1\n\ndata: 2\n\nevent: remove\n\ndata: 3\n\n"]),
            [
                ServerSentEvent(event: "add", data: "1"), ServerSentEvent(data: "2"), ServerSentEvent(data: "3"),
            ])
    }

    func testUnknownFields_andNamesInAnotherCase_areIgnored() throws {
        XCTAssertEqual(
            try parse(["foo: bar\ndata: a\nDATA: b\nData: c\n data: d\ndata : e\nEvent: x\nID: 5\n\n"]),
            [ServerSentEvent(data: "a")])
    }

    func testComments_areIgnored_andACommentOnlyBlockFiresNothing() throws {
        XCTAssertEqual(
            try parse([": keep-alive\n\n:\n\ndata: a\n: between\ndata: b\n\n"]), [ServerSentEvent(data: "a\nb")])
    }

    func testColonsAfterTheFirst_belongToTheValue() throws {
        XCTAssertEqual(try parse(["data: a:b\ndata:: c\n\n"]), [ServerSentEvent(data: "a:b\n: c")])
    }

    func testPendingDataAtTheEnd_isDiscarded() throws {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        try parser.parse(Data("event: x\nretry: 5\ndata: a\ndata: unended".utf8)) { events.append($0) }
        parser.finish()
        XCTAssertEqual(parser.bufferedByteCount, 0)
        // A new stream does not continue the discarded block.
        try parser.parse(Data("data: b\n\n".utf8)) { events.append($0) }
        XCTAssertEqual(events, [ServerSentEvent(data: "b")])
        XCTAssertEqual(parser.reconnectionTime, 5)
    }

    // MARK: Decoding

    func testInvalidUTF8_isReplacedByReplacementCharacters() throws {
        let stream: [UInt8] =
            bytes("event: t") + [0xFF] + bytes("\nid: i") + [0xC3] + bytes("\ndata: a") + [0xFF] + bytes("b")
            + [0xE2, 0x82] + bytes("c\n\n")
        assertEventsInEverySplit(
            stream, [ServerSentEvent(id: "i\u{FFFD}", event: "t\u{FFFD}", data: "a\u{FFFD}b\u{FFFD}c")])
    }

    func testMultiByteCharacters_splitBetweenChunks_decodeRight() throws {
        let text = "data: é€😀\nevent: ü\n\n"
        let utf8 = bytes(text)
        // Split inside the four bytes of 😀 (F0 9F 98 80).
        let emoji = try XCTUnwrap(utf8.firstIndex(of: 0xF0))
        let events = try parse([Array(utf8[..<(emoji + 2)]), Array(utf8[(emoji + 2)...])])
        XCTAssertEqual(events, [ServerSentEvent(event: "ü", data: "é€😀")])
        assertEventsInEverySplit(utf8, [ServerSentEvent(event: "ü", data: "é€😀")])
    }

    // MARK: Limits

    func testLineLongerThanTheLimit_throws_whereverTheChunksSplitIt() throws {
        // "data: abcd" is 10 bytes: allowed; one more byte is not.
        XCTAssertEqual(try parse(["data: abcd\n\n"], maximumLineLength: 10), [ServerSentEvent(data: "abcd")])
        let stream = bytes("data: a\n\ndata: abcde\n\n")
        for split in 0...stream.count {
            var parser = ServerSentEventParser(maximumLineLength: 10)
            var events: [ServerSentEvent] = []
            assertInvalidResponse(reasonContains: "line exceeded 10 bytes without a line end") {
                try parser.parse(Data(stream[..<split])) { events.append($0) }
                try parser.parse(Data(stream[split...])) { events.append($0) }
            }
            XCTAssertEqual(events, [ServerSentEvent(data: "a")], "split at \(split)")
            XCTAssertLessThanOrEqual(parser.bufferedByteCount, 10)
        }
    }

    func testUnendedLine_neverBuffersMoreThanTheLimit() {
        var parser = ServerSentEventParser(maximumLineLength: 100)
        var fed = 0
        assertInvalidResponse(reasonContains: "100 bytes") {
            for _ in 0..<1000 {
                try parser.parse(Data("data: a".utf8)) { _ in XCTFail("no event") }
                fed += 7
                XCTAssertLessThanOrEqual(parser.bufferedByteCount, 100)
            }
        }
        // 14 chunks (98 bytes) fit; the 15th would make 105.
        XCTAssertEqual(fed, 98)
        XCTAssertEqual(parser.bufferedByteCount, 98)
    }

    func testBeginningOfAByteOrderMark_countsTowardsTheLineLimit() {
        var parser = ServerSentEventParser(maximumLineLength: 1)
        assertInvalidResponse(reasonContains: "1 bytes") {
            try parser.parse(Data([0xEF, 0xBB, 0x78])) { _ in XCTFail("no event") }
        }
        XCTAssertLessThanOrEqual(parser.bufferedByteCount, 1)
    }

    func testEventDataLongerThanTheLimit_throws() {
        var parser = ServerSentEventParser(maximumDataLength: 12)
        var events: [ServerSentEvent] = []
        assertInvalidResponse(reasonContains: "event data exceeded 12 bytes") {
            // "12345\n" twice is 12 bytes: allowed; a third data line is not.
            try parser.parse(Data("data: 12345\ndata: 12345\n\ndata: 12345\ndata: 12345\ndata: 1\n\n".utf8)) {
                events.append($0)
            }
        }
        XCTAssertEqual(events, [ServerSentEvent(data: "12345\n12345")])
    }

    // MARK: The event's description

    func testDescription_showsTheFields_andShortensLongData() {
        XCTAssertEqual(
            ServerSentEvent(id: "7", event: "add", data: "a\nb", retry: 10).description,
            #"ServerSentEvent(event: add, id: 7, retry: 10, data: "a\nb")"#)
        let long = ServerSentEvent(data: String(repeating: "x", count: 300)).description
        XCTAssertTrue(long.hasSuffix("\"… (300 bytes))"), long)
        XCTAssertFalse(long.contains(String(repeating: "x", count: 201)), long)
    }

    // MARK: Helpers

    /// The UTF-8 bytes of `text`.
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The events a new parser dispatches from `chunks`, before it is finished.
    private func parse(_ chunks: [String], maximumLineLength: Int = 1 << 20) throws -> [ServerSentEvent] {
        try parse(chunks.map(bytes), maximumLineLength: maximumLineLength)
    }

    /// The events a new parser dispatches from `chunks`, before it is finished.
    private func parse(_ chunks: [[UInt8]], maximumLineLength: Int = 1 << 20) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(maximumLineLength: maximumLineLength)
        var events: [ServerSentEvent] = []
        for chunk in chunks {
            try parser.parse(Data(chunk)) { events.append($0) }
        }
        parser.finish()
        return events
    }

    /// Asserts that `stream`, written with LF line ends, gives `expected` with each of LF, CRLF
    /// and CR, split anywhere.
    private func assertEventsInEveryLineEndAndSplit(
        _ stream: String, _ expected: [ServerSentEvent], file: StaticString = #filePath, line: UInt = #line
    ) {
        for lineEnd in ["\n", "\r\n", "\r"] {
            let text = stream.replacingOccurrences(of: "\n", with: lineEnd)
            assertEventsInEverySplit(bytes(text), expected, file: file, line: line)
        }
    }

    /// Asserts that `stream` gives `expected` whole, in two chunks split at every offset, and
    /// byte by byte.
    private func assertEventsInEverySplit(
        _ stream: [UInt8], _ expected: [ServerSentEvent], file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            for split in 0...stream.count {
                let events = try parse([Array(stream[..<split]), Array(stream[split...])])
                XCTAssertEqual(events, expected, "split at \(split) of \(stream)", file: file, line: line)
            }
            let events = try parse(stream.map { [$0] })
            XCTAssertEqual(events, expected, "byte by byte: \(stream)", file: file, line: line)
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
        }
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

extension ServerSentEventParserTests {
    func testSourceLastEventID_isTheBufferAtTheLastBlankLine_notAnIDOfACutOffBlock() throws {
        var parser = ServerSentEventParser(lastEventID: "0")
        XCTAssertEqual(parser.sourceLastEventID, "0")
        try parser.parse(Data("id: 1\ndata: one\n\nid: 2\ndata: tw".utf8)) { _ in }

        XCTAssertEqual(parser.lastEventID, "2", "the buffer took the cut-off block's id")
        XCTAssertEqual(parser.sourceLastEventID, "1", "what a reconnection reports")
        try parser.parse(Data("\nid: 3\n\n".utf8)) { _ in }
        XCTAssertEqual(parser.sourceLastEventID, "3", "a block without data still copies it")
    }
}
