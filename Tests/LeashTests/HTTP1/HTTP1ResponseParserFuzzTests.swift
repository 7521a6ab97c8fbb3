import Foundation
import XCTest

@testable import Leash

/// SplitMix64, a small seeded generator, so that every run tries the same inputs and a failure reproduces.
private struct FuzzGenerator: RandomNumberGenerator {
    /// The generator's state.
    var state: UInt64

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Checks, event by event, what every event stream must obey whatever the input.
private struct InvariantChecker {
    /// The limits the parser was given.
    let limits: HTTP1ParserLimits
    /// The interim heads so far.
    var interimCount = 0
    /// The framing of the final head, once it came.
    var framing: HTTP1BodyFraming?
    /// The body bytes so far.
    var bodyBytes: Int64 = 0
    /// Whether `.end` came.
    var ended = false
    /// What broke an invariant, if anything did.
    var violations: [String] = []

    /// Checks the events of one call and the parser's counters after it.
    mutating func check(_ events: [HTTP1ParserEvent], parser: HTTP1ResponseParser) {
        for event in events {
            if ended { violations.append("\(event) after .end") }
            switch event {
            case .interim(let head):
                interimCount += 1
                if framing != nil { violations.append("interim head after the final head") }
                if !(100...199).contains(head.statusCode) || head.statusCode == 101 {
                    violations.append("interim head with status \(head.statusCode)")
                }
                if interimCount > limits.maximumInterimResponses { violations.append("\(interimCount) interim heads") }
                checkHead(head)
            case .head(let head, let framing, let keepsConnection):
                if self.framing != nil { violations.append("a second head") }
                self.framing = framing
                if framing == .untilClose && keepsConnection { violations.append("untilClose keeps the connection") }
                checkHead(head)
            case .body(let data):
                bodyBytes += Int64(data.count)
                if data.isEmpty { violations.append("empty body") }
                switch framing {
                case nil: violations.append("body before the head")
                case .none?: violations.append("body with framing none")
                case .length(let length)? where bodyBytes > length:
                    violations.append("\(bodyBytes) body bytes for length \(length)")
                default: break
                }
            case .end(let trailers):
                ended = true
                switch framing {
                case nil: violations.append("end before the head")
                case .length(let length)? where bodyBytes != length:
                    violations.append("end after \(bodyBytes) body bytes for length \(length)")
                case .none? where bodyBytes != 0: violations.append("body bytes with framing none")
                default: break
                }
                if !trailers.isEmpty && framing != .chunked { violations.append("trailers without chunks") }
            }
        }
        if parser.isComplete != ended { violations.append("isComplete \(parser.isComplete), ended \(ended)") }
        if parser.excessBytes > 0 && !ended { violations.append("excess bytes before the end") }
        if parser.headBytes > (interimCount + 1) * limits.maximumHeadBytes {
            violations.append("\(parser.headBytes) head bytes for \(interimCount + 1) heads")
        }
    }

    /// Checks what every head must obey.
    mutating func checkHead(_ head: HTTP1ResponseHead) {
        if head.headers.count > limits.maximumHeaderCount { violations.append("\(head.headers.count) headers") }
        if !(100...999).contains(head.statusCode) { violations.append("status \(head.statusCode)") }
        if head.minorVersion != 0 && head.minorVersion != 1 { violations.append("minor version \(head.minorVersion)") }
    }
}

/// What feeding one input in some pieces (then closing) gave.
private struct FuzzOutcome: Equatable {
    /// The events before any error, adjacent bodies merged.
    var events: [HTTP1ParserEvent] = []
    /// The error, if one was thrown.
    var error: HTTP1ResponseError?
    /// Whether the response ended, before or at the close.
    var completed = false
    /// What broke an invariant (not compared).
    var violations: [String] = []

    /// Outcomes are the same when their errors are, and their events too when neither threw (a call that
    /// throws discards its events, so where the error comes depends on the split).
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.error == rhs.error && lhs.completed == rhs.completed && (lhs.error != nil || lhs.events == rhs.events)
    }
}

/// Runs the parser over `input` cut at `cuts` (sorted offsets), then `finish()`, checking invariants throughout.
private func parseChecked(
    _ input: [UInt8], cuts: [Int], method: String, limits: HTTP1ParserLimits
) -> FuzzOutcome {
    var parser = HTTP1ResponseParser(requestMethod: method, limits: limits)
    var checker = InvariantChecker(limits: limits)
    var outcome = FuzzOutcome()
    var start = 0
    do {
        for end in cuts + [input.count] {
            let events = try input[start..<end].withUnsafeBytes { raw in
                Result { () throws(HTTP1ResponseError) in try parser.parse(raw) }
            }.get()
            checker.check(events, parser: parser)
            outcome.events += events
            start = end
        }
        let events = try parser.finish()
        checker.check(events, parser: parser)
        outcome.events += events
    } catch {
        outcome.error = error
    }
    outcome.completed = parser.isComplete
    outcome.violations = checker.violations
    outcome.events = outcome.events.reduce(into: []) { merged, event in
        if case .body(let data) = event, case .body(let previous)? = merged.last {
            merged[merged.count - 1] = .body(previous + data)
        } else {
            merged.append(event)
        }
    }
    return outcome
}

/// Random cut offsets for an input of `count` bytes: none, a few, or (sometimes) between every byte.
private func randomCuts(_ count: Int, _ random: inout FuzzGenerator) -> [Int] {
    guard count > 1 else { return [] }
    if Int.random(in: 0..<10, using: &random) == 0 { return Array(1..<count) }
    let cutCount = Int.random(in: 0...min(8, count - 1), using: &random)
    return Set((0..<cutCount).map { _ in Int.random(in: 1..<count, using: &random) }).sorted()
}

/// The name of an error's case, for counting outcomes.
private func caseName(_ error: HTTP1ResponseError?) -> String {
    switch error {
    case nil: return "none"
    case .closedBeforeHead?: return "closedBeforeHead"
    case .conflictingContentLengths?: return "conflictingContentLengths"
    case .missingChunkTerminator?: return "missingChunkTerminator"
    case let error?: return Mirror(reflecting: error).children.first?.label ?? "\(error)"
    }
}

/// One valid response of the corpus and what it must parse to.
private struct CorpusEntry {
    /// The method of the request.
    var method = "GET"
    /// The bytes of the response.
    var bytes: [UInt8]
    /// The body the response carries, decoded.
    var body: [UInt8]
    /// The status of its final head.
    var statusCode = 200
}

/// A gzip-looking body: the gzip magic and then bytes of every value, CR and LF included.
private let binaryBody: [UInt8] = {
    var random = FuzzGenerator(state: 7)
    return [0x1F, 0x8B, 0x08, 0x00] + (0..<300).map { _ in UInt8.random(in: 0...255, using: &random) }
}()

/// About fifteen valid responses covering every framing.
private let corpus: [CorpusEntry] = {
    func entry(_ text: String, body: String, method: String = "GET", status: Int = 200) -> CorpusEntry {
        CorpusEntry(method: method, bytes: Array(text.utf8), body: Array(body.utf8), statusCode: status)
    }
    let chunkedBinary =
        Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n100\r\n".utf8)
        + binaryBody[..<256] + Array("\r\n30;ext=\"a b\"\r\n".utf8) + binaryBody[256...]
        + Array("\r\n0\r\nDigest: x\r\n\r\n".utf8)
    return [
        entry("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", body: "hello"),
        entry(
            "HTTP/1.1 404 Not Found\r\nServer: t\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nContent-Type: text/plain; "
                + "charset=utf-8\r\nConnection: close\r\nContent-Length: 9\r\nX-A: 1\r\nX-A: 2\r\n\r\nnot found",
            body: "not found", status: 404),
        entry(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n5;a=b\r\nhello\r\n7 ; c\r\n, world"
                + "\r\n0;last\r\nX-Sum: 42\r\nX-More: a\r\n b\r\n\r\n",
            body: "hello, world"),
        entry(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                + "000A\r\n0123456789\r\nb\r\nabcdefghijk\r\n0\r\n\r\n",
            body: "0123456789abcdefghijk"),
        entry(
            "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>until close</html>",
            body: "<html>until close</html>"),
        entry(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nLocation: /a\r\nContent-Length: 2\r\n\r\nok",
            body: "ok", status: 201),
        entry(
            "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 103 Early Hints\r\nLink: </a.js>\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            body: "abc"),
        entry("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nETag: \"x\"\r\n\r\n", body: "", method: "HEAD"),
        entry("HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n", body: "", status: 204),
        entry(
            "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\nCache-Control: max-age=60\r\n\r\n", body: "", status: 304),
        CorpusEntry(
            bytes: Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 304\r\n\r\n".utf8) + binaryBody,
            body: binaryBody),
        CorpusEntry(bytes: chunkedBinary, body: binaryBody),
        entry("HTTP/1.1 200 OK\nContent-Length: 3\nX-Bare: lf\n\nabc", body: "abc"),
        entry(
            "HTTP/1.1 200 Gr\u{FC}\u{DF}e\r\nX-Fold: a\r\n\tb\r\nX-Text: caf\u{E9}\r\nContent-Length: 0\r\n\r\n",
            body: ""),
        entry(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", body: "",
            status: 101),
        entry("HTTP/1.1 200 Connection established\r\n\r\n", body: "", method: "CONNECT"),
        entry(
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            body: "abc"),
    ]
}()

/// Fragments spliced into inputs, each aimed at a rule of the parser.
private let fragments: [[UInt8]] = [
    "\r\n", "\n", "\r", "0\r\n", "\r\n\r\n", "ffffffffffffffffffff", "8000000000000000", "7fffffffffffffff", ":", " ",
    "\t", ";", ",", "\0", "Content-Length: 5\r\n", "Content-Length: 99999999999999999999\r\n",
    "Transfer-Encoding: chunked\r\n", "HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 200 OK\r\n", "Connection: close\r\n",
    " folded\r\n", "HTTP/2 200\r\n", "\u{FF}", "5\r\nhello\r\n",
].map { Array($0.utf8) }

/// Small limits, so that fuzzing reaches every limit.
private let smallLimits = HTTP1ParserLimits(
    maximumHeadBytes: 256, maximumLineBytes: 64, maximumHeaderCount: 5, maximumChunkLineBytes: 16,
    maximumTrailerBytes: 40, maximumInterimResponses: 1)

final class HTTP1ResponseParserFuzzTests: XCTestCase {
    /// Tallies of outcomes, printed so that a reader sees what the fuzzing reached.
    private struct Tally {
        /// Inputs tried.
        var inputs = 0
        /// Inputs whose response ended.
        var completed = 0
        /// Errors by case.
        var errors: [String: Int] = [:]

        /// Counts `outcome`.
        mutating func count(_ outcome: FuzzOutcome) {
            inputs += 1
            if outcome.completed { completed += 1 }
            if let error = outcome.error { errors[caseName(error), default: 0] += 1 }
        }

        /// The tally in one line.
        var summary: String {
            let errorCount = errors.values.reduce(0, +)
            let kinds = errors.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return "\(inputs) inputs: \(completed) completed, \(errorCount) errors (\(kinds))"
        }
    }

    /// Runs `input` whole and under random cuts, asserting the invariants and that both give the same outcome.
    private func check(
        _ input: [UInt8], method: String, limits: HTTP1ParserLimits, random: inout FuzzGenerator, tally: inout Tally
    ) {
        let whole = parseChecked(input, cuts: [], method: method, limits: limits)
        let cuts = randomCuts(input.count, &random)
        let split = parseChecked(input, cuts: cuts, method: method, limits: limits)
        tally.count(whole)
        XCTAssertEqual(whole.violations + split.violations, [], "input \(input), cuts \(cuts)")
        XCTAssertEqual(whole, split, "input \(Data(input).base64EncodedString()), cuts \(cuts)")
    }

    func testRandomByteSoup() {
        var random = FuzzGenerator(state: 0x5EED_0001)
        var tally = Tally()
        let started = Date()
        let words: [[UInt8]] =
            fragments
            + ["HTTP/1.1 ", "HTTP/1.0 ", "200", "100", "204", " OK", "Content-Length", "0", "a", "X-A: b"].map {
                Array($0.utf8)
            }
        for index in 0..<5000 {
            var input: [UInt8] = []
            if index % 2 == 0 {
                input = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            } else {
                for _ in 0..<Int.random(in: 0...30, using: &random) {
                    input += words[Int.random(in: 0..<words.count, using: &random)]
                }
            }
            let method = ["GET", "HEAD", "CONNECT"][Int.random(in: 0...2, using: &random)]
            let limits = index % 3 == 0 ? smallLimits : .default
            check(input, method: method, limits: limits, random: &random, tally: &tally)
        }
        print("HTTP/1 parser fuzz, byte soup: \(tally.summary) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        XCTAssertEqual(tally.inputs, 5000)
        XCTAssertGreaterThan(tally.errors.count, 5, "the soup reaches several kinds of error")
    }

    func testMutatedResponses() {
        var random = FuzzGenerator(state: 0x5EED_0002)
        var tally = Tally()
        let started = Date()
        for index in 0..<10000 {
            let entry = corpus[index % corpus.count]
            var input = entry.bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                mutate(&input, &random)
            }
            let limits = index % 4 == 0 ? smallLimits : .default
            check(input, method: entry.method, limits: limits, random: &random, tally: &tally)
        }
        print("HTTP/1 parser fuzz, mutations: \(tally.summary) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        XCTAssertEqual(tally.inputs, 10000)
        XCTAssertGreaterThan(tally.completed, 1000, "many mutants still parse")
        XCTAssertGreaterThan(tally.errors.count, 14, "mutants reach most kinds of error")
    }

    func testCorpusParsesTheSameUnderRandomSplits() {
        var random = FuzzGenerator(state: 0x5EED_0003)
        var runs = 0
        for entry in corpus {
            let reference = parseChecked(entry.bytes, cuts: [], method: entry.method, limits: .default)
            XCTAssertNil(reference.error, "\(String(decoding: entry.bytes, as: UTF8.self))")
            XCTAssertTrue(reference.completed)
            XCTAssertEqual(reference.violations, [])
            var body = Data()
            var status: Int?
            for event in reference.events {
                if case .body(let data) = event { body += data }
                if case .head(let head, _, _) = event { status = head.statusCode }
            }
            XCTAssertEqual(body, Data(entry.body))
            XCTAssertEqual(status, entry.statusCode)
            let byteByByte = parseChecked(
                entry.bytes, cuts: Array(1..<entry.bytes.count), method: entry.method, limits: .default)
            XCTAssertEqual(byteByByte.events, reference.events)
            for _ in 0..<50 {
                let cuts = randomCuts(entry.bytes.count, &random)
                let split = parseChecked(entry.bytes, cuts: cuts, method: entry.method, limits: .default)
                XCTAssertNil(split.error, "cuts \(cuts)")
                XCTAssertEqual(split.events, reference.events, "cuts \(cuts)")
                runs += 1
            }
        }
        print("HTTP/1 parser fuzz, corpus: \(corpus.count) responses, \(runs) random splits, all identical")
        XCTAssertGreaterThanOrEqual(corpus.count, 15)
    }

    /// Applies one random mutation to `input`, half of them at the start of a line where fields begin.
    private func mutate(_ input: inout [UInt8], _ random: inout FuzzGenerator) {
        var position = Int.random(in: 0...input.count, using: &random)
        if Bool.random(using: &random), let lineFeed = input[position...].firstIndex(of: 0x0A) {
            position = lineFeed + 1
        }
        switch Int.random(in: 0..<7, using: &random) {
        case 0 where position < input.count:
            input[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
        case 1 where position < input.count:
            input[position] = UInt8.random(in: 0...255, using: &random)
        case 2:
            input.insert(
                contentsOf: (0..<Int.random(in: 1...8, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }, at: position)
        case 3:
            let end = min(input.count, position + Int.random(in: 1...16, using: &random))
            input.removeSubrange(position..<end)
        case 4:
            let end = min(input.count, position + Int.random(in: 1...32, using: &random))
            let copy = Array(input[position..<end])
            input.insert(contentsOf: copy, at: Int.random(in: 0...input.count, using: &random))
        case 5:
            input.removeSubrange(position...)
        default:
            input.insert(contentsOf: fragments[Int.random(in: 0..<fragments.count, using: &random)], at: position)
        }
    }
}
