import Foundation
import XCTest

@testable import Leash

/// What feeding bytes to a parser gave: the events (adjacent bodies merged), the error if one was thrown, and
/// the parser afterwards.
private struct Outcome {
    /// The events of every call that did not throw, adjacent `.body` events merged.
    var events: [HTTP1ParserEvent] = []
    /// The error a call threw, if any.
    var error: HTTP1ResponseError?
    /// The parser after the last call.
    var parser: HTTP1ResponseParser
}

/// `text` as bytes.
private func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// `events` with adjacent `.body` events merged, the form in which every split of the input gives the same.
private func merged(_ events: [HTTP1ParserEvent]) -> [HTTP1ParserEvent] {
    var result: [HTTP1ParserEvent] = []
    for event in events {
        if case .body(let data) = event, case .body(let previous)? = result.last {
            result[result.count - 1] = .body(previous + data)
        } else {
            result.append(event)
        }
    }
    return result
}

/// Feeds `pieces` to a new parser one call each, then calls `finish()` if asked, stopping at the first error.
private func feed(
    pieces: [[UInt8]], method: String = "GET", limits: HTTP1ParserLimits = .default, finish: Bool = false
) -> Outcome {
    var outcome = Outcome(parser: HTTP1ResponseParser(requestMethod: method, limits: limits))
    do {
        for piece in pieces {
            outcome.events += try piece.withUnsafeBytes { raw in
                Result { () throws(HTTP1ResponseError) in try outcome.parser.parse(raw) }
            }.get()
        }
        if finish { outcome.events += try outcome.parser.finish() }
    } catch {
        outcome.error = error
    }
    outcome.events = merged(outcome.events)
    return outcome
}

/// Feeds `text` whole (one call).
private func feed(
    _ text: String, method: String = "GET", limits: HTTP1ParserLimits = .default, finish: Bool = false
) -> Outcome {
    feed(pieces: [bytes(text)], method: method, limits: limits, finish: finish)
}

/// Feeds `input` one byte a call.
private func feedBytewise(
    _ input: [UInt8], method: String = "GET", limits: HTTP1ParserLimits = .default, finish: Bool = false
) -> Outcome {
    feed(pieces: input.map { [$0] }, method: method, limits: limits, finish: finish)
}

/// A head with HTTP/1.1 unless told otherwise.
private func head(
    _ statusCode: Int, _ reason: String, _ headers: [(name: String, value: String)] = [], minorVersion: Int = 1
) -> HTTP1ResponseHead {
    HTTP1ResponseHead(minorVersion: minorVersion, statusCode: statusCode, reason: reason, headers: headers)
}

/// `text` as a body event.
private func body(_ text: String) -> HTTP1ParserEvent {
    .body(Data(text.utf8))
}

/// The end event without trailers.
private let end = HTTP1ParserEvent.end(trailers: [])

final class HTTP1ResponseParserTests: XCTestCase {
    /// Asserts that `text`, fed whole and byte by byte, gives exactly `events` and no error.
    private func assertEvents(
        _ text: String, _ events: [HTTP1ParserEvent], method: String = "GET", limits: HTTP1ParserLimits = .default,
        finish: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) {
        for outcome in [
            feed(text, method: method, limits: limits, finish: finish),
            feedBytewise(bytes(text), method: method, limits: limits, finish: finish),
        ] {
            XCTAssertNil(outcome.error, file: file, line: line)
            XCTAssertEqual(outcome.events, events, file: file, line: line)
        }
    }

    /// Asserts that `text`, fed whole and byte by byte (and finished if asked), throws exactly `error`.
    private func assertError(
        _ text: String, _ error: HTTP1ResponseError, method: String = "GET", limits: HTTP1ParserLimits = .default,
        finish: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) {
        for outcome in [
            feed(text, method: method, limits: limits, finish: finish),
            feedBytewise(bytes(text), method: method, limits: limits, finish: finish),
        ] {
            XCTAssertEqual(outcome.error, error, "for \(text.debugDescription)", file: file, line: line)
        }
    }

    // MARK: Heads

    func testContentLengthResponse() {
        let text = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
        let expected = head(200, "OK", [("Content-Type", "text/plain"), ("Content-Length", "5")])
        assertEvents(text, [.head(expected, framing: .length(5), keepsConnection: true), body("hello"), end])
        let outcome = feed(text)
        XCTAssertTrue(outcome.parser.isComplete)
        XCTAssertEqual(outcome.parser.headBytes, text.utf8.count - 5)
        XCTAssertEqual(outcome.parser.bodyWireBytes, 5)
        XCTAssertEqual(outcome.parser.excessBytes, 0)
    }

    func testFieldsKeepOrderDuplicatesNamesAndTrimValues() throws {
        let text =
            "HTTP/1.1 200 OK\r\nX-A:  1 \r\nx-a:\t2\t\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nEmpty:\r\n"
            + "Inner: a  b\r\nContent-Length: 0\r\n\r\n"
        let outcome = feed(text)
        guard case .head(let parsed, _, _)? = outcome.events.first else { return XCTFail("no head: \(outcome)") }
        XCTAssertEqual(
            parsed,
            head(
                200, "OK",
                [
                    ("X-A", "1"), ("x-a", "2"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("Empty", ""),
                    ("Inner", "a  b"), ("Content-Length", "0"),
                ]))
        XCTAssertEqual(parsed.values("x-A"), ["1", "2"])
        XCTAssertEqual(parsed.value("SET-COOKIE"), "a=1")
        XCTAssertNil(parsed.value("Missing"))
        XCTAssertNotEqual(parsed, head(200, "OK", [("X-A", "1")]))
    }

    func testStatusLineForms() {
        let cases: [(String, HTTP1ResponseHead)] = [
            ("HTTP/1.1 200 OK", head(200, "OK")),
            ("HTTP/1.1 200 ", head(200, "")),
            ("HTTP/1.1 200", head(200, "")),
            ("HTTP/1.0 404 Not  Found here", head(404, "Not  Found here", minorVersion: 0)),
            ("HTTP/1.1 999 Custom", head(999, "Custom")),
            ("HTTP/1.1 200 \tOK\t", head(200, "\tOK\t")),
            ("HTTP/1.2 200 OK", head(200, "OK")),  // a later HTTP/1 minor version reads as 1.1
        ]
        for (statusLine, expected) in cases {
            let outcome = feed(statusLine + "\r\nContent-Length: 0\r\n\r\n")
            var withLength = expected
            withLength.headers = [("Content-Length", "0")]
            XCTAssertEqual(outcome.error, nil, statusLine)
            XCTAssertEqual(
                outcome.events.first,
                .head(withLength, framing: .length(0), keepsConnection: expected.minorVersion == 1), statusLine)
        }
    }

    func testMalformedStatusLines() {
        let cases: [(String, HTTP1ResponseError)] = [
            ("HTTP/2 200 OK", .unsupportedVersion("HTTP/2")),
            ("HTTP/2.0 200 OK", .unsupportedVersion("HTTP/2.0")),
            ("HTTP/0.9 200 OK", .unsupportedVersion("HTTP/0.9")),
            ("HTTP/1.10 200 OK", .unsupportedVersion("HTTP/1.10")),
            ("HTTP/1.x 200 OK", .unsupportedVersion("HTTP/1.x")),
            ("http/1.1 200 OK", .malformedStatusLine("http/1.1 200 OK")),
            ("ICY 200 OK", .malformedStatusLine("ICY 200 OK")),
            ("", .malformedStatusLine("")),
            ("HTTP/1.1", .malformedStatusLine("HTTP/1.1")),
            ("HTTP/1.1 ", .malformedStatusLine("HTTP/1.1 ")),
            ("HTTP/1.1 20", .malformedStatusLine("HTTP/1.1 20")),
            ("HTTP/1.1 2000 OK", .malformedStatusLine("HTTP/1.1 2000 OK")),
            ("HTTP/1.1 200OK", .malformedStatusLine("HTTP/1.1 200OK")),
            ("HTTP/1.1 099 Low", .malformedStatusLine("HTTP/1.1 099 Low")),
            ("HTTP/1.1  200 OK", .malformedStatusLine("HTTP/1.1  200 OK")),
            ("HTTP/1.1 2x0 OK", .malformedStatusLine("HTTP/1.1 2x0 OK")),
            ("HTTP/1.1 200 O\rK", .malformedStatusLine("HTTP/1.1 200 O\\rK")),
            ("HTTP/1.1 200 O\u{0}K", .malformedStatusLine("HTTP/1.1 200 O\\0K")),
        ]
        for (statusLine, error) in cases {
            assertError(statusLine + "\r\nContent-Length: 0\r\n\r\n", error)
        }
    }

    func testMalformedHeaders() {
        let cases: [(String, HTTP1ResponseError)] = [
            ("Name : value", .malformedHeader("Name : value")),
            ("Name\t: value", .malformedHeader("Name\\t: value")),
            ("No colon", .malformedHeader("No colon")),
            ("NoColon", .malformedHeader("NoColon")),
            (": value", .malformedHeader(": value")),
            ("Na(me: value", .malformedHeader("Na(me: value")),
            ("Naïve: value", .malformedHeader("Na\\xC3\\xAFve: value")),
            ("Name: va\u{0}lue", .malformedHeader("Name: va\\0lue")),
            ("Name: va\rlue", .malformedHeader("Name: va\\rlue")),
            ("Name: value\r", .malformedHeader("Name: value\\r")),
            (" Folded: first", .malformedHeader(" Folded: first")),
        ]
        for (line, error) in cases {
            assertError("HTTP/1.1 200 OK\r\n" + line + "\r\nContent-Length: 0\r\n\r\n", error)
        }
    }

    func testObsFoldIsReplacedBySpace() {
        let text =
            "HTTP/1.1 200 OK\r\nX-Fold: a\r\n  b \r\n\tc\r\nX-Empty:\r\n z\r\nX-Blank: y\r\n \t\r\n"
            + "Content-Length: 0\r\n\r\n"
        let expected = head(
            200, "OK", [("X-Fold", "a b c"), ("X-Empty", "z"), ("X-Blank", "y"), ("Content-Length", "0")])
        assertEvents(text, [.head(expected, framing: .length(0), keepsConnection: true), end])
    }

    func testNonASCIITextDecodesAsUTF8ElseLatin1() {
        var input = bytes("HTTP/1.1 200 Gr")
        input += [0xFC, 0xDF]  // ISO-8859-1 "üß", invalid UTF-8
        input += bytes("e\r\nX-UTF8: caf\u{E9}\r\nX-Latin1: caf")
        input += [0xE9]
        input += bytes("\r\nX-Sign: ")
        input += [0xEF, 0xBF, 0xBD]  // a valid U+FFFD stays itself
        input += bytes("\r\nContent-Length: 0\r\n\r\n")
        let expected = head(
            200, "Gr\u{FC}\u{DF}e",
            [("X-UTF8", "caf\u{E9}"), ("X-Latin1", "caf\u{E9}"), ("X-Sign", "\u{FFFD}"), ("Content-Length", "0")])
        for outcome in [feed(pieces: [input]), feedBytewise(input)] {
            XCTAssertEqual(outcome.events, [.head(expected, framing: .length(0), keepsConnection: true), end])
        }
    }

    func testBareLineFeedsAreLineEndings() {
        let text = "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\nX-A: 1\n\n3\nabc\n2;x=y\r\nde\n0\nT: v\n\n"
        let expected = head(200, "OK", [("Transfer-Encoding", "chunked"), ("X-A", "1")])
        assertEvents(
            text,
            [.head(expected, framing: .chunked, keepsConnection: true), body("abcde"), .end(trailers: [("T", "v")])])
    }

    func testBareCarriageReturnIsMalformed() {
        assertError("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", .malformedHeader("X: a\\rb"))
        assertError("HTTP/1.1 200 OK\r\r\n\r\n", .malformedStatusLine("HTTP/1.1 200 OK\\r"))
        // A CR that ends a line without its LF starts no blank line: "\r\r\n" is not the end of the head.
        assertError("HTTP/1.1 200 OK\r\nX: 1\r\n\r\r\n\r\n", .malformedHeader("\\r"))
    }

    // MARK: Framing

    func testContentLengthZeroEndsWithTheHead() {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP"
        let outcome = feed(text)
        XCTAssertEqual(
            outcome.events,
            [.head(head(200, "OK", [("Content-Length", "0")]), framing: .length(0), keepsConnection: true), end])
        XCTAssertEqual(outcome.parser.excessBytes, 4)
    }

    func testIdenticalContentLengthsAreOneLength() {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 005\r\ncontent-length: 5 , 5\r\n\r\nhello"
        let expected = head(200, "OK", [("Content-Length", "005"), ("content-length", "5 , 5")])
        assertEvents(text, [.head(expected, framing: .length(5), keepsConnection: true), body("hello"), end])
        let largest = feed("HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n")
        XCTAssertEqual(largest.events.count, 1)
        guard case .head(_, let framing, _)? = largest.events.first else { return XCTFail("no head") }
        XCTAssertEqual(framing, .length(Int64.max))
    }

    func testConflictingContentLengths() {
        assertError("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .conflictingContentLengths)
        assertError("HTTP/1.1 200 OK\r\nContent-Length: 5, 50\r\n\r\n", .conflictingContentLengths)
    }

    func testInvalidContentLengths() {
        for value in [
            "-1", "+5", "0x10", "1 2", "", "5,", ",5", "5;", "1e3", "9223372036854775808", "99999999999999999999",
        ] {
            assertError(
                "HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\n\r\n",
                .invalidContentLength(value))
        }
    }

    func testResponsesWithoutBody() {
        let cases: [(method: String, status: String, header: String)] = [
            ("HEAD", "200 OK", "Content-Length: 10"),
            ("HEAD", "200 OK", "Transfer-Encoding: chunked"),
            ("GET", "204 No Content", "Content-Length: 10"),
            ("GET", "304 Not Modified", "Transfer-Encoding: chunked"),
            ("head", "204 No Content", "Content-Length: x"),  // the method does not matter; no length is read
        ]
        for (method, status, header) in cases {
            let text = "HTTP/1.1 \(status)\r\n\(header)\r\n\r\nextra"
            let outcome = feed(text, method: method)
            XCTAssertNil(outcome.error, "\(method) \(status)")
            XCTAssertEqual(outcome.events.count, 2, "\(method) \(status)")
            guard case .head(_, let framing, let keeps)? = outcome.events.first else { return XCTFail("no head") }
            XCTAssertEqual(framing, .none)
            XCTAssertTrue(keeps)
            XCTAssertEqual(outcome.events.last, end)
            XCTAssertEqual(outcome.parser.excessBytes, 5)
        }
        // "head" is not HEAD: methods are case-sensitive, so a 200 with a length has a body.
        assertEvents(
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
            [
                .head(head(200, "OK", [("Content-Length", "1")]), framing: .length(1), keepsConnection: true),
                body("x"), end,
            ],
            method: "head")
    }

    func testConnectTunnel() {
        let outcome = feed(
            "HTTP/1.1 200 Connection Established\r\nContent-Length: 10\r\n\r\n\u{16}\u{3}\u{1}", method: "CONNECT")
        XCTAssertEqual(
            outcome.events,
            [
                .head(
                    head(200, "Connection Established", [("Content-Length", "10")]), framing: .none,
                    keepsConnection: true),
                end,
            ])
        XCTAssertEqual(outcome.parser.excessBytes, 3)
        // A refused CONNECT is an ordinary response with a body.
        assertEvents(
            "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 2\r\n\r\nno",
            [
                .head(
                    head(407, "Proxy Authentication Required", [("Content-Length", "2")]), framing: .length(2),
                    keepsConnection: true),
                body("no"), end,
            ],
            method: "CONNECT")
    }

    func testSwitchingProtocols() {
        let outcome = feed(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{0}")
        XCTAssertEqual(
            outcome.events,
            [
                .head(
                    head(101, "Switching Protocols", [("Upgrade", "websocket"), ("Connection", "Upgrade")]),
                    framing: .none, keepsConnection: false),
                end,
            ])
        XCTAssertEqual(outcome.parser.excessBytes, 3)  // U+0081 is two bytes of UTF-8, then NUL
    }

    func testContinueThenFinalResponse() {
        let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        assertEvents(
            text,
            [
                .interim(head(100, "Continue")),
                .head(head(200, "OK", [("Content-Length", "2")]), framing: .length(2), keepsConnection: true),
                body("ok"), end,
            ])
        XCTAssertEqual(feed(text).parser.headBytes, text.utf8.count - 2)
    }

    func testEarlyHintsThenFinalResponse() {
        let text =
            "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
            + "HTTP/1.1 103 Early Hints\r\nLink: </b.js>; rel=preload\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        assertEvents(
            text,
            [
                .interim(head(103, "Early Hints", [("Link", "</a.css>; rel=preload")])),
                .interim(head(103, "Early Hints", [("Link", "</b.js>; rel=preload")])),
                .head(head(200, "OK", [("Content-Length", "0")]), framing: .length(0), keepsConnection: true), end,
            ])
    }

    func testTooManyInterimResponses() {
        let limits = HTTP1ParserLimits(maximumInterimResponses: 2)
        let interim = "HTTP/1.1 100 Continue\r\n\r\n"
        let final = "HTTP/1.1 204 No Content\r\n\r\n"
        XCTAssertNil(feed(interim + interim + final, limits: limits).error)
        assertError(interim + interim + interim + final, .tooManyInterimResponses(limit: 2), limits: limits)
    }

    func testConnectionPersistence() {
        let cases: [(version: String, connection: String?, keeps: Bool)] = [
            ("1.1", nil, true),
            ("1.1", "close", false),
            ("1.1", "Keep-Alive, CLOSE", false),
            ("1.1", "closed", true),
            ("1.1", "keep-alive", true),
            ("1.0", nil, false),
            ("1.0", "keep-alive", true),
            ("1.0", "Upgrade, Keep-Alive", true),
            ("1.0", "keep-alive, close", false),
        ]
        for (version, connection, keeps) in cases {
            let field = connection.map { "Connection: \($0)\r\n" } ?? ""
            let outcome = feed("HTTP/\(version) 200 OK\r\n\(field)Content-Length: 0\r\n\r\n")
            guard case .head(_, _, let keepsConnection)? = outcome.events.first else { return XCTFail("no head") }
            XCTAssertEqual(keepsConnection, keeps, "\(version) \(connection ?? "-")")
        }
    }

    func testTransferEncodingWinsOverContentLength() {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        let expected = head(200, "OK", [("Content-Length", "3"), ("Transfer-Encoding", "chunked")])
        assertEvents(text, [.head(expected, framing: .chunked, keepsConnection: false), body("hello"), end])
        // TE wins even over a Content-Length that would be invalid.
        let outcome = feed("HTTP/1.1 200 OK\r\nContent-Length: x\r\nTransfer-Encoding: gzip\r\n\r\n")
        guard case .head(_, let framing, let keeps)? = outcome.events.first else { return XCTFail("no head") }
        XCTAssertEqual(framing, .untilClose)
        XCTAssertFalse(keeps)
    }

    func testTransferEncodingLastCodingDecides() {
        let cases: [(fields: [String], version: String, framing: HTTP1BodyFraming, keeps: Bool)] = [
            (["gzip, chunked"], "1.1", .chunked, true),
            (["gzip, CHUNKED ,"], "1.1", .chunked, true),
            (["chunked, gzip"], "1.1", .untilClose, false),
            (["gzip"], "1.1", .untilClose, false),
            (["gzip", "Chunked"], "1.1", .chunked, true),
            (["chunked", "gzip"], "1.1", .untilClose, false),
            ([""], "1.1", .untilClose, false),
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 is decoded but the connection is not reused.
            (["chunked"], "1.0", .chunked, false),
        ]
        for (fields, version, framing, keeps) in cases {
            let text = "HTTP/\(version) 200 OK\r\n" + fields.map { "Transfer-Encoding: \($0)\r\n" }.joined() + "\r\n"
            let outcome = feed(text)
            guard case .head(_, let parsedFraming, let parsedKeeps)? = outcome.events.first else {
                return XCTFail("no head for \(fields)")
            }
            XCTAssertEqual(parsedFraming, framing, "\(fields)")
            XCTAssertEqual(parsedKeeps, keeps, "\(fields)")
        }
    }

    func testBodyUntilCloseEndsAtFinish() throws {
        var parser = HTTP1ResponseParser(requestMethod: "GET")
        XCTAssertEqual(
            try parser.parse(Data("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nab".utf8)),
            [
                .head(head(200, "OK", [("Connection", "keep-alive")]), framing: .untilClose, keepsConnection: false),
                body("ab"),
            ])
        XCTAssertEqual(try parser.parse(Data("cd".utf8)), [body("cd")])
        XCTAssertEqual(try parser.parse(Data()), [])
        XCTAssertFalse(parser.isComplete)
        XCTAssertEqual(try parser.finish(), [end])
        XCTAssertTrue(parser.isComplete)
        XCTAssertEqual(parser.bodyWireBytes, 4)
        XCTAssertEqual(try parser.finish(), [])
        XCTAssertEqual(try parser.parse(Data("late".utf8)), [])
        XCTAssertEqual(parser.excessBytes, 4)
    }

    func testLengthBodyIsHandedOutAsItArrives() throws {
        var parser = HTTP1ResponseParser(requestMethod: "GET")
        XCTAssertEqual(
            try parser.parse(Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhe".utf8)),
            [.head(head(200, "OK", [("Content-Length", "5")]), framing: .length(5), keepsConnection: true), body("he")])
        XCTAssertEqual(try parser.parse(Data("ll".utf8)), [body("ll")])
        XCTAssertFalse(parser.isComplete)
        XCTAssertEqual(try parser.parse(Data("oHTTP".utf8)), [body("o"), end])
        XCTAssertEqual(parser.excessBytes, 4)
        XCTAssertEqual(try parser.parse(Data("/1.1".utf8)), [])
        XCTAssertEqual(parser.excessBytes, 8)
    }

    // MARK: Chunked bodies

    /// A chunked response with extensions, a chunk of data split over lines, and trailers.
    private let chunked =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n"
        + "5;name=value\r\nhello\r\n"
        + "0007 ; a ; b=\"q;x\"\r\n, world\r\n"
        + "A\r\n\r\n12345678\r\n"
        + "0;last\r\nX-Sum: 42\r\nX-Folded: a\r\n b\r\n\r\n"

    /// The events `chunked` gives.
    private var chunkedEvents: [HTTP1ParserEvent] {
        [
            .head(
                head(200, "OK", [("Transfer-Encoding", "chunked"), ("Trailer", "X-Sum")]), framing: .chunked,
                keepsConnection: true),
            body("hello, world\r\n12345678"),
            .end(trailers: [("X-Sum", "42"), ("X-Folded", "a b")]),
        ]
    }

    func testChunkedWithExtensionsAndTrailers() {
        assertEvents(chunked, chunkedEvents)
        let outcome = feed(chunked + "extra")
        XCTAssertEqual(outcome.parser.excessBytes, 5)
        let headLength = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n".utf8.count
        XCTAssertEqual(outcome.parser.headBytes, headLength)
        XCTAssertEqual(outcome.parser.bodyWireBytes, chunked.utf8.count - headLength)
    }

    func testChunkedSplitAtEveryOffsetGivesTheSameEvents() {
        let input = bytes(chunked)
        for cut in 0...input.count {
            let outcome = feed(pieces: [Array(input[..<cut]), Array(input[cut...])])
            XCTAssertNil(outcome.error, "cut at \(cut)")
            XCTAssertEqual(outcome.events, chunkedEvents, "cut at \(cut)")
            XCTAssertEqual(outcome.parser.bodyWireBytes + outcome.parser.headBytes, input.count, "cut at \(cut)")
        }
        for first in stride(from: 0, through: input.count, by: 7) {
            for second in first...input.count {
                let pieces = [Array(input[..<first]), Array(input[first..<second]), Array(input[second...])]
                XCTAssertEqual(feed(pieces: pieces).events, chunkedEvents, "cuts at \(first), \(second)")
            }
        }
    }

    func testChunkSizeForms() {
        let prefix = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let framedHead = HTTP1ParserEvent.head(
            head(200, "OK", [("Transfer-Encoding", "chunked")]), framing: .chunked, keepsConnection: true)
        for (chunks, text) in [
            ("0005\r\nhello\r\n0\r\n\r\n", "hello"),
            ("A\r\n0123456789\r\na\r\nabcdefghij\r\n0\r\n\r\n", "0123456789abcdefghij"),
            ("5 ;x=y\r\nhello\r\n5\t; x\r\nworld\r\n000;done\r\n\r\n", "helloworld"),
            ("5 \r\nhello\r\n0\r\n\r\n", "hello"),
        ] {
            assertEvents(prefix + chunks, [framedHead, body(text), end])
        }
        assertEvents(prefix + "0\r\n\r\n", [framedHead, end])
        // The largest size fits: the line is accepted, then the body is cut short.
        assertError(
            prefix + "7fffffffffffffff\r\nab", .closedInsideBody(received: 2, expected: nil), finish: true)
        assertError(
            prefix + "00000000000000000000000001\r\na", .closedInsideBody(received: 1, expected: nil), finish: true)
    }

    func testMalformedChunkSizes() {
        let prefix = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let cases: [(String, String)] = [
            ("\r\n", ""),
            ("g\r\n", "g"),
            (" 5\r\n", " 5"),
            ("5 x\r\n", "5 x"),
            ("0x5\r\n", "0x5"),
            ("-5\r\n", "-5"),
            ("8000000000000000\r\n", "8000000000000000"),
            ("10000000000000000\r\n", "10000000000000000"),
            ("fffffffffffffffffffffffffffffffff\r\n", "fffffffffffffffffffffffffffffffff"),
            ("5;a\u{0}b\r\n", "5;a\\0b"),
            ("5\rx\r\n", "5\\rx"),
        ]
        for (line, excerpt) in cases {
            assertError(prefix + line, .malformedChunkSize(excerpt))
        }
    }

    func testChunkLineTooLong() {
        let limits = HTTP1ParserLimits(maximumChunkLineBytes: 8)
        let prefix = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        // 8 bytes with the CRLF are allowed; 9 are not, found before the line ends.
        XCTAssertNil(feed(prefix + "1;abcd\r\nx\r\n0\r\n\r\n", limits: limits).error)
        assertError(prefix + "1;abcde\r\nx\r\n0\r\n\r\n", .chunkLineTooLong(limit: 8), limits: limits)
        assertError(prefix + "000000000", .chunkLineTooLong(limit: 8), limits: limits)
    }

    func testMissingChunkTerminator() {
        let prefix = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        assertError(prefix + "3\r\nabcd\r\n0\r\n\r\n", .missingChunkTerminator)
        assertError(prefix + "3\r\nabc\rX", .missingChunkTerminator)
        assertError(prefix + "3\r\nabc\r\r\n", .missingChunkTerminator)
    }

    func testChunkLineAloneGivesNoBodyEvent() throws {
        var parser = HTTP1ResponseParser(requestMethod: "GET")
        XCTAssertEqual(
            try parser.parse(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5".utf8)).count, 1)
        XCTAssertEqual(try parser.parse(Data("\r".utf8)), [])
        XCTAssertEqual(try parser.parse(Data("\nhe".utf8)), [body("he")])
        XCTAssertEqual(try parser.parse(Data("llo\r".utf8)), [body("llo")])
        XCTAssertEqual(try parser.parse(Data("\n0\r\n".utf8)), [])
        XCTAssertEqual(try parser.parse(Data("\r\n".utf8)), [end])
    }

    func testTrailerLimitsAndSyntax() {
        let prefix = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        let limits = HTTP1ParserLimits(maximumTrailerBytes: 12)
        // "A: 1234567\r\n" is 12 bytes, so with the blank line the section is 14.
        assertError(prefix + "A: 1234567\r\n\r\n", .trailersTooLarge(limit: 12), limits: limits)
        XCTAssertEqual(feed(prefix + "A: 12345\r\n\r\n", limits: limits).events.last, .end(trailers: [("A", "12345")]))
        assertError(prefix + "Bad Trailer\r\n\r\n", .malformedTrailer("Bad Trailer"))
        assertError(prefix + " folded\r\n\r\n", .malformedTrailer(" folded"))
        assertError(prefix + "A: b\u{0}\r\n\r\n", .malformedTrailer("A: b\\0"))
        assertError(
            prefix + "A: " + String(repeating: "x", count: 30) + "\r\n\r\n", .lineTooLong(limit: 32),
            limits: HTTP1ParserLimits(maximumLineBytes: 32))
    }

    // MARK: Limits

    func testHeadLimits() {
        let text = "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\n\r\n"  // 31 bytes, lines of 17, 6, 6 and 2
        let count = text.utf8.count
        XCTAssertNil(feed(text, limits: HTTP1ParserLimits(maximumHeadBytes: count)).error)
        assertError(text, .headTooLarge(limit: count - 1), limits: HTTP1ParserLimits(maximumHeadBytes: count - 1))
        XCTAssertNil(feed(text, limits: HTTP1ParserLimits(maximumLineBytes: 17)).error)
        assertError(text, .lineTooLong(limit: 16), limits: HTTP1ParserLimits(maximumLineBytes: 16))
        XCTAssertNil(feed(text, limits: HTTP1ParserLimits(maximumHeaderCount: 2)).error)
        assertError(text, .tooManyHeaders(limit: 1), limits: HTTP1ParserLimits(maximumHeaderCount: 1))
        // Whichever limit the bytes cross first decides, however they are split.
        // The status line crosses a line limit of 16 at its 17th byte, before a head limit of 17 ...
        let lineFirst = HTTP1ParserLimits(maximumHeadBytes: 17, maximumLineBytes: 16)
        assertError(text, .lineTooLong(limit: 16), limits: lineFirst)
        // ... and a head limit of 10 at its 11th byte, before a line limit of 12; at a tie the head's limit wins.
        assertError(
            text, .headTooLarge(limit: 10), limits: HTTP1ParserLimits(maximumHeadBytes: 10, maximumLineBytes: 12))
        assertError(
            text, .headTooLarge(limit: 16), limits: HTTP1ParserLimits(maximumHeadBytes: 16, maximumLineBytes: 16))
        // The second line crosses a head limit of 20 with lines well within theirs.
        assertError(
            text, .headTooLarge(limit: 20), limits: HTTP1ParserLimits(maximumHeadBytes: 20, maximumLineBytes: 17))
        // A head that never ends is stopped at the limit, not buffered without bound.
        var parser = HTTP1ResponseParser(requestMethod: "GET", limits: HTTP1ParserLimits(maximumHeadBytes: 100))
        XCTAssertThrowsError(try parser.parse(Data(repeating: 0x41, count: 101))) {
            XCTAssertEqual($0 as? HTTP1ResponseError, .headTooLarge(limit: 100))
        }
    }

    // MARK: Errors and the end of the connection

    func testErrorIsSticky() throws {
        var parser = HTTP1ResponseParser(requestMethod: "GET")
        XCTAssertThrowsError(try parser.parse(Data("HTTP/9 200 OK\r\n\r\n".utf8))) {
            XCTAssertEqual($0 as? HTTP1ResponseError, .unsupportedVersion("HTTP/9"))
        }
        XCTAssertThrowsError(try parser.parse(Data("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))) {
            XCTAssertEqual($0 as? HTTP1ResponseError, .unsupportedVersion("HTTP/9"))
        }
        XCTAssertThrowsError(try parser.parse(Data())) {
            XCTAssertEqual($0 as? HTTP1ResponseError, .unsupportedVersion("HTTP/9"))
        }
        XCTAssertThrowsError(try parser.finish()) {
            XCTAssertEqual($0 as? HTTP1ResponseError, .unsupportedVersion("HTTP/9"))
        }
        XCTAssertFalse(parser.isComplete)
        // A truncation error is sticky too.
        var closed = HTTP1ResponseParser(requestMethod: "GET")
        XCTAssertThrowsError(try closed.finish())
        XCTAssertThrowsError(try closed.parse(Data("HTTP/1.1 204 No Content\r\n\r\n".utf8))) {
            XCTAssertEqual($0 as? HTTP1ResponseError, .closedBeforeHead)
        }
    }

    func testFinishInEveryState() {
        let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let cases: [(String, HTTP1ResponseError?)] = [
            ("", .closedBeforeHead),
            ("HTTP/1.1 20", .closedInsideHead(receivedBytes: 11)),
            ("HTTP/1.1 200 OK\r\n", .closedInsideHead(receivedBytes: 17)),
            ("HTTP/1.1 100 Continue\r\n\r\n", .closedInsideHead(receivedBytes: 25)),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", .closedInsideBody(received: 0, expected: 10)),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", .closedInsideBody(received: 3, expected: 10)),
            (chunkedHead, .closedInsideBody(received: 0, expected: nil)),
            (chunkedHead + "5", .closedInsideBody(received: 0, expected: nil)),
            (chunkedHead + "5\r\nab", .closedInsideBody(received: 2, expected: nil)),
            (chunkedHead + "5\r\nabcde\r", .closedInsideBody(received: 5, expected: nil)),
            (chunkedHead + "5\r\nabcde\r\n0\r\nX: 1\r\n", .closedInsideBody(received: 5, expected: nil)),
            ("HTTP/1.1 200 OK\r\n\r\nabc", nil),
            ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", nil),
            (chunkedHead + "0\r\n\r\n", nil),
        ]
        for (text, error) in cases {
            let outcome = feed(text, finish: true)
            XCTAssertEqual(outcome.error, error, text.debugDescription)
            XCTAssertEqual(feedBytewise(bytes(text), finish: true).error, error, text.debugDescription)
            if error == nil {
                XCTAssertEqual(outcome.events.last, end, text.debugDescription)
                XCTAssertTrue(outcome.parser.isComplete)
            }
        }
    }

    func testErrorDescriptionsAndExcerpts() {
        let errors: [HTTP1ResponseError] = [
            .closedBeforeHead, .closedInsideHead(receivedBytes: 12), .closedInsideBody(received: 3, expected: 10),
            .closedInsideBody(received: 3, expected: nil), .headTooLarge(limit: 1), .lineTooLong(limit: 2),
            .tooManyHeaders(limit: 3), .tooManyInterimResponses(limit: 4), .malformedStatusLine("x"),
            .unsupportedVersion("HTTP/2"), .malformedHeader("y"), .invalidContentLength("z"),
            .conflictingContentLengths,
            .malformedChunkSize("g"), .chunkLineTooLong(limit: 5), .missingChunkTerminator,
            .trailersTooLarge(limit: 6), .malformedTrailer("t"),
        ]
        XCTAssertEqual(Set(errors.map(\.description)).count, errors.count, "each error says something different")
        for error in errors {
            XCTAssertTrue(error.description.hasPrefix("The ") || error.description.hasPrefix("A "), error.description)
            XCTAssertTrue(error.description.hasSuffix("."), error.description)
        }
        XCTAssertEqual(
            HTTP1ResponseError.closedInsideBody(received: 3, expected: 10).description,
            "The connection closed after 3 of the 10 bytes of the response body.")
        XCTAssertTrue(HTTP1ResponseError.unsupportedVersion("HTTP/2").description.contains("\"HTTP/2\""))
        // Excerpts are escaped and bounded.
        let long = String(repeating: "x", count: 100)
        assertError(
            "HTTP/1.1 200 " + long + "\u{0}\r\n\r\n",
            .malformedStatusLine("HTTP/1.1 200 " + String(repeating: "x", count: 51) + "…"))
        assertError("\u{1}\u{7F}\\\t\u{FF}\r\n\r\n", .malformedStatusLine("\\x01\\x7F\\\\\\t\\xC3\\xBF"))
    }

    func testEmptyInputAndDataConvenience() throws {
        var parser = HTTP1ResponseParser(requestMethod: "GET")
        XCTAssertEqual(try parser.parse(Data()), [])
        let events = try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0))
        XCTAssertEqual(events, [])
        XCTAssertEqual(parser.headBytes, 0)
        // A slice of a Data, whose indices do not start at 0.
        let data = Data("xxHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi".utf8).dropFirst(2)
        XCTAssertEqual(
            try parser.parse(data),
            [
                .head(head(200, "OK", [("Content-Length", "2")]), framing: .length(2), keepsConnection: true),
                body("hi"), end,
            ])
    }
}
