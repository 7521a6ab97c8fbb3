import Foundation

/// One response head: the status line and the header fields, as the server sent them.
package struct HTTP1ResponseHead: Sendable, Equatable {
    /// The minor version of `HTTP/1.x`: 0 or 1 (a later HTTP/1 minor version is read as 1, RFC 9110 §6.2).
    package var minorVersion: Int
    /// The status code, 100...999.
    package var statusCode: Int
    /// The reason phrase, possibly empty; clients must not rely on it.
    package var reason: String
    /// The header fields in the order sent, duplicates kept, names as sent, values trimmed of SP and HTAB.
    package var headers: [(name: String, value: String)]

    /// A head with the given parts.
    package init(
        minorVersion: Int = 1, statusCode: Int, reason: String = "", headers: [(name: String, value: String)] = []
    ) {
        self.minorVersion = minorVersion
        self.statusCode = statusCode
        self.reason = reason
        self.headers = headers
    }

    /// The values of the fields named `name` (compared case-insensitively), in order.
    package func values(_ name: String) -> [String] {
        headers.filter { HTTP1ResponseSyntax.namesEqual($0.name, name) }.map(\.value)
    }

    /// The value of the first field named `name` (compared case-insensitively).
    package func value(_ name: String) -> String? {
        headers.first { HTTP1ResponseSyntax.namesEqual($0.name, name) }?.value
    }

    /// Heads are equal when every part is; written by hand because tuples are not `Equatable`.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.minorVersion == rhs.minorVersion && lhs.statusCode == rhs.statusCode && lhs.reason == rhs.reason
            && HTTP1ResponseSyntax.fieldsEqual(lhs.headers, rhs.headers)
    }
}

/// How the body of a final head is delimited (RFC 9112 §6.3).
package enum HTTP1BodyFraming: Sendable, Equatable {
    /// No body: the answer to HEAD, 1xx, 204, 304, and a 2xx answer to CONNECT (a tunnel follows).
    case none
    /// `Content-Length` bytes (0 means the response ends with its head).
    case length(Int64)
    /// The chunked transfer coding.
    case chunked
    /// Everything until the server closes the connection.
    case untilClose
}

/// What the parser found, in order.
package enum HTTP1ParserEvent: Sendable, Equatable {
    /// A 1xx head other than 101 (100 Continue, 103 Early Hints); the final head follows.
    case interim(HTTP1ResponseHead)
    /// The final head, how its body is delimited and whether the connection can carry another request.
    case head(HTTP1ResponseHead, framing: HTTP1BodyFraming, keepsConnection: Bool)
    /// Body bytes (decoded from chunks for a chunked body); never empty.
    case body(Data)
    /// The response is complete; `trailers` are the trailer fields of a chunked body.
    case end(trailers: [(name: String, value: String)])

    /// Events are equal when their cases and values are; written by hand because tuples are not `Equatable`.
    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.interim(let left), .interim(let right)):
            return left == right
        case (.head(let left, let leftFraming, let leftKeeps), .head(let right, let rightFraming, let rightKeeps)):
            return left == right && leftFraming == rightFraming && leftKeeps == rightKeeps
        case (.body(let left), .body(let right)):
            return left == right
        case (.end(let left), .end(let right)):
            return HTTP1ResponseSyntax.fieldsEqual(left, right)
        default:
            return false
        }
    }
}

/// An incremental HTTP/1.1 response parser (RFC 9112): feed it the bytes of a connection as they arrive and it
/// returns the heads, body bytes and end of one response.
///
/// Heads, chunk-size lines and trailers are collected until complete (bounded by `HTTP1ParserLimits`) and
/// parsed once; when one arrives whole in a single call it is parsed in place, without copying. Body bytes
/// are handed out as `Data` slices of the input, one copy each, never accumulated.
package struct HTTP1ResponseParser: Sendable {
    /// Where the parser is in the response.
    private enum State: Sendable {
        /// Collecting a head (interim or final).
        case head
        /// Inside a `Content-Length` body with `remaining` bytes to come.
        case lengthBody(remaining: Int64)
        /// Collecting a chunk-size line.
        case chunkSizeLine
        /// Inside a chunk's data with `remaining` bytes to come.
        case chunkData(remaining: Int64)
        /// After a chunk's data, expecting its CRLF; `sawCR` once the CR came.
        case chunkDataEnd(sawCR: Bool)
        /// Collecting the trailer section after the last chunk.
        case trailers
        /// Inside a body that ends when the connection closes.
        case untilClose
        /// `.end` was produced; further bytes are excess.
        case complete
        /// An error was thrown; every later call throws it again.
        case failed(HTTP1ResponseError)
    }

    /// The method of the request this response answers.
    package let requestMethod: String
    /// The limits in force (negative values read as 0).
    package let limits: HTTP1ParserLimits
    /// Whether the request was HEAD: the response has no body whatever its fields say.
    private let answersHEAD: Bool
    /// Whether the request was CONNECT: a 2xx response has no body and starts a tunnel.
    private let answersCONNECT: Bool
    /// Where the parser is.
    private var state = State.head
    /// Progress through the lines of the section being collected (head, chunk-size line or trailers).
    private var scan = LineScan()
    /// The part of the section being collected that earlier calls delivered; empty when it arrives whole.
    private var buffer: [UInt8] = []
    /// The interim heads seen so far.
    private var interimCount = 0
    /// The body bytes handed out so far (decoded, for a chunked body).
    private var bodyReceived: Int64 = 0
    /// The `Content-Length` of the body, for the truncation error.
    private var bodyExpected: Int64 = 0

    /// Bytes received after `.end`, which the parser did not consume: the trailing `excessBytes` bytes of the
    /// input (summed over every call after the end). The connection must then not be reused.
    package private(set) var excessBytes = 0
    /// Bytes of heads (interim and final) received so far, for metrics.
    package private(set) var headBytes = 0
    /// Bytes of the body as on the wire so far, chunk framing and trailers included, for metrics.
    package private(set) var bodyWireBytes = 0

    /// Whether `.end` was produced.
    package var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// A parser for the response to a request with `requestMethod` ("HEAD": no body; "CONNECT": a 2xx response
    /// has no body and keeps the connection as a tunnel). The method is compared case-sensitively.
    package init(requestMethod: String, limits: HTTP1ParserLimits = .default) {
        self.requestMethod = requestMethod
        self.limits = HTTP1ParserLimits(
            maximumHeadBytes: max(0, limits.maximumHeadBytes),
            maximumLineBytes: max(0, limits.maximumLineBytes),
            maximumHeaderCount: max(0, limits.maximumHeaderCount),
            maximumChunkLineBytes: max(0, limits.maximumChunkLineBytes),
            maximumTrailerBytes: max(0, limits.maximumTrailerBytes),
            maximumInterimResponses: max(0, limits.maximumInterimResponses))
        answersHEAD = requestMethod == "HEAD"
        answersCONNECT = requestMethod == "CONNECT"
    }

    /// Parses the next bytes that arrived and returns the events they complete, in order.
    ///
    /// Bytes after `.end` are not consumed: `excessBytes` counts them. After an error is thrown, every later
    /// call throws the same error.
    package mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(HTTP1ResponseError) -> [HTTP1ParserEvent] {
        if case .failed(let error) = state { throw error }
        var events: [HTTP1ParserEvent] = []
        // A head, a body and the end often arrive together: one allocation instead of three.
        events.reserveCapacity(4)
        do {
            try consume(bytes, into: &events)
        } catch {
            fail(error)
            throw error
        }
        return events
    }

    /// Parses the next bytes that arrived (see `parse(_:)` for raw bytes).
    package mutating func parse(_ bytes: Data) throws(HTTP1ResponseError) -> [HTTP1ParserEvent] {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(HTTP1ResponseError) in try parse(raw) }
        }
        return try result.get()
    }

    /// The peer closed the connection: ends a body delimited by the close with `.end(trailers: [])`; anywhere
    /// else before `.end` it throws the matching truncation error. After `.end` it returns no events.
    package mutating func finish() throws(HTTP1ResponseError) -> [HTTP1ParserEvent] {
        let error: HTTP1ResponseError
        switch state {
        case .failed(let failure):
            throw failure
        case .complete:
            return []
        case .untilClose:
            state = .complete
            return [.end(trailers: [])]
        case .head:
            error = headBytes == 0 ? .closedBeforeHead : .closedInsideHead(receivedBytes: headBytes)
        case .lengthBody:
            error = .closedInsideBody(received: bodyReceived, expected: bodyExpected)
        case .chunkSizeLine, .chunkData, .chunkDataEnd, .trailers:
            error = .closedInsideBody(received: bodyReceived, expected: nil)
        }
        fail(error)
        throw error
    }

    /// Makes `error` the answer to every later call and frees the buffer.
    private mutating func fail(_ error: HTTP1ResponseError) {
        state = .failed(error)
        buffer = []
    }

    /// Consumes `input` state by state, appending the events it completes.
    private mutating func consume(
        _ input: UnsafeRawBufferPointer, into events: inout [HTTP1ParserEvent]
    ) throws(HTTP1ResponseError) {
        guard let base = input.baseAddress else { return }
        var position = 0
        while position < input.count {
            switch state {
            case .head:
                position = try consumeHead(input, from: position, into: &events)
            case .lengthBody(let remaining):
                let taken = Self.available(input.count - position, of: remaining)
                events.append(.body(Data(bytes: base + position, count: taken)))
                position += taken
                bodyWireBytes += taken
                bodyReceived += Int64(taken)
                if remaining == Int64(taken) {
                    state = .complete
                    events.append(.end(trailers: []))
                } else {
                    state = .lengthBody(remaining: remaining - Int64(taken))
                }
            case .chunkSizeLine:
                position = try consumeChunkSizeLine(input, from: position)
            case .chunkData(let remaining):
                let taken = Self.available(input.count - position, of: remaining)
                events.append(.body(Data(bytes: base + position, count: taken)))
                position += taken
                bodyWireBytes += taken
                bodyReceived += Int64(taken)
                if remaining == Int64(taken) {
                    state = .chunkDataEnd(sawCR: false)
                } else {
                    state = .chunkData(remaining: remaining - Int64(taken))
                }
            case .chunkDataEnd(let sawCR):
                // RFC 9112 §7.1: chunk data is followed by CRLF (a bare LF accepted, §2.2); anything else means
                // the size was wrong, and guessing on would hand out bytes that are not the body.
                let byte = input[position]
                if byte == HTTP1ResponseSyntax.lf {
                    state = .chunkSizeLine
                } else if byte == HTTP1ResponseSyntax.cr && !sawCR {
                    state = .chunkDataEnd(sawCR: true)
                } else {
                    throw .missingChunkTerminator
                }
                position += 1
                bodyWireBytes += 1
            case .trailers:
                position = try consumeTrailers(input, from: position, into: &events)
            case .untilClose:
                events.append(.body(Data(bytes: base + position, count: input.count - position)))
                bodyWireBytes += input.count - position
                bodyReceived += Int64(input.count - position)
                position = input.count
            case .complete:
                excessBytes += input.count - position
                position = input.count
            case .failed(let error):
                throw error
            }
        }
    }

    /// How many of `count` available bytes belong to a body part with `remaining` bytes to come.
    private static func available(_ count: Int, of remaining: Int64) -> Int {
        Int64(count) < remaining ? count : Int(remaining)
    }

    /// Collects a head from `input[start...]`; once it is complete, parses it and moves on to its body.
    private mutating func consumeHead(
        _ input: UnsafeRawBufferPointer, from start: Int, into events: inout [HTTP1ParserEvent]
    ) throws(HTTP1ResponseError) -> Int {
        let end = try scan.advance(
            in: input, from: start, endsAtBlankLine: true, lineLimit: limits.maximumLineBytes,
            sectionLimit: limits.maximumHeadBytes, lineError: .lineTooLong(limit: limits.maximumLineBytes),
            sectionError: .headTooLarge(limit: limits.maximumHeadBytes))
        headBytes += (end ?? input.count) - start
        guard let end else { return keep(input, from: start) }
        let limits = self.limits
        let head = try collected(input, start..<end) { bytes throws(HTTP1ResponseError) in
            try HTTP1ResponseSyntax.parseHead(bytes, limits: limits)
        }
        // RFC 9110 §15.2: a 1xx other than 101 is interim; the final head follows on the same connection.
        if (100...199).contains(head.statusCode) && head.statusCode != 101 {
            interimCount += 1
            guard interimCount <= limits.maximumInterimResponses else {
                throw .tooManyInterimResponses(limit: limits.maximumInterimResponses)
            }
            events.append(.interim(head))
            return end
        }
        let (framing, keepsConnection) = try HTTP1ResponseSyntax.framing(
            of: head, answersHEAD: answersHEAD, answersCONNECT: answersCONNECT)
        events.append(.head(head, framing: framing, keepsConnection: keepsConnection))
        switch framing {
        case .none, .length(0):
            state = .complete
            events.append(.end(trailers: []))
        case .length(let length):
            bodyExpected = length
            state = .lengthBody(remaining: length)
        case .chunked:
            state = .chunkSizeLine
        case .untilClose:
            state = .untilClose
        }
        return end
    }

    /// Collects a chunk-size line from `input[start...]`; once it is complete, moves on to the chunk's data,
    /// or to the trailers after the last chunk.
    private mutating func consumeChunkSizeLine(
        _ input: UnsafeRawBufferPointer, from start: Int
    ) throws(HTTP1ResponseError) -> Int {
        let limit = limits.maximumChunkLineBytes
        let end = try scan.advance(
            in: input, from: start, endsAtBlankLine: false, lineLimit: limit, sectionLimit: Int.max,
            lineError: .chunkLineTooLong(limit: limit), sectionError: .chunkLineTooLong(limit: limit))
        bodyWireBytes += (end ?? input.count) - start
        guard let end else { return keep(input, from: start) }
        let size = try collected(input, start..<end) { bytes throws(HTTP1ResponseError) in
            try HTTP1ResponseSyntax.parseChunkSize(bytes)
        }
        state = size == 0 ? .trailers : .chunkData(remaining: size)
        return end
    }

    /// Collects the trailer section from `input[start...]`; once it is complete, ends the response.
    private mutating func consumeTrailers(
        _ input: UnsafeRawBufferPointer, from start: Int, into events: inout [HTTP1ParserEvent]
    ) throws(HTTP1ResponseError) -> Int {
        let end = try scan.advance(
            in: input, from: start, endsAtBlankLine: true, lineLimit: limits.maximumLineBytes,
            sectionLimit: limits.maximumTrailerBytes, lineError: .lineTooLong(limit: limits.maximumLineBytes),
            sectionError: .trailersTooLarge(limit: limits.maximumTrailerBytes))
        bodyWireBytes += (end ?? input.count) - start
        guard let end else { return keep(input, from: start) }
        let trailers = try collected(input, start..<end) { bytes throws(HTTP1ResponseError) in
            try HTTP1ResponseSyntax.parseTrailers(bytes)
        }
        state = .complete
        events.append(.end(trailers: trailers))
        return end
    }

    /// Keeps `input[start...]`, the start of a section that is not complete yet, for the next call.
    private mutating func keep(_ input: UnsafeRawBufferPointer, from start: Int) -> Int {
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[start...]))
        return input.count
    }

    /// The result of `body` applied to the complete section that ends with `input[range]`: in place when the
    /// section arrived in this call, else after appending `range` to the part kept from earlier calls.
    private mutating func collected<T>(
        _ input: UnsafeRawBufferPointer, _ range: Range<Int>,
        _ body: (UnsafeRawBufferPointer) throws(HTTP1ResponseError) -> T
    ) throws(HTTP1ResponseError) -> T {
        if buffer.isEmpty {
            return try body(UnsafeRawBufferPointer(rebasing: input[range]))
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[range]))
        let result = buffer.withUnsafeBytes { bytes in
            Result { () throws(HTTP1ResponseError) in try body(bytes) }
        }
        buffer.removeAll(keepingCapacity: true)
        return try result.get()
    }
}

/// Progress through a section of lines (a head, a chunk-size line, a trailer section) that may arrive split
/// over several calls, enforcing the section's limits as bytes arrive so that nothing grows without bound.
private struct LineScan: Sendable {
    /// Bytes of the current line so far.
    var lineBytes = 0
    /// Bytes of the section so far.
    var sectionBytes = 0
    /// Whether the current line so far is a single CR (a blank line if LF follows).
    var lineIsCR = false

    /// Scans `input[start...]` for the end of the section: its first LF, or with `endsAtBlankLine` its first
    /// empty line. Returns the index after that LF, or nil when the input ends first.
    ///
    /// Throws `lineError` or `sectionError`, whichever limit the bytes exceed first, so that every split of
    /// the same bytes gives the same error. Lines count their line ending.
    mutating func advance(
        in input: UnsafeRawBufferPointer, from start: Int, endsAtBlankLine: Bool, lineLimit: Int, sectionLimit: Int,
        lineError: HTTP1ResponseError, sectionError: HTTP1ResponseError
    ) throws(HTTP1ResponseError) -> Int? {
        guard let base = input.baseAddress else { return nil }
        var position = start
        while position < input.count {
            let remaining = input.count - position
            let lineFeed = memchr(base + position, Int32(HTTP1ResponseSyntax.lf), remaining)
            let taken = lineFeed.map { (base + position).distance(to: UnsafeRawPointer($0)) + 1 } ?? remaining
            let lineOver = lineBytes + taken > lineLimit
            let sectionOver = sectionBytes + taken > sectionLimit
            if lineOver || sectionOver {
                if lineOver && (!sectionOver || lineLimit - lineBytes < sectionLimit - sectionBytes) {
                    throw lineError
                }
                throw sectionError
            }
            guard lineFeed != nil else {
                lineIsCR = lineBytes == 0 && taken == 1 && input[position] == HTTP1ResponseSyntax.cr
                lineBytes += taken
                sectionBytes += taken
                return nil
            }
            // A blank line is empty or a lone CR before its LF; that CR may have come in an earlier call.
            let contentBytes = lineBytes + taken - 1
            let loneByteIsCR = taken == 2 ? input[position] == HTTP1ResponseSyntax.cr : lineIsCR
            let isBlank = contentBytes == 0 || (contentBytes == 1 && loneByteIsCR)
            position += taken
            if isBlank || !endsAtBlankLine {
                self = LineScan()
                return position
            }
            sectionBytes += taken
            lineBytes = 0
            lineIsCR = false
        }
        return nil
    }
}

/// The byte-level syntax of HTTP/1.1 heads, fields and chunks (RFC 9112, RFC 9110 §5), as pure functions.
enum HTTP1ResponseSyntax {
    /// Carriage return.
    static let cr: UInt8 = 0x0D
    /// Line feed.
    static let lf: UInt8 = 0x0A
    /// Space.
    static let space: UInt8 = 0x20
    /// Horizontal tab.
    static let tab: UInt8 = 0x09
    /// The colon between a field's name and value.
    static let colon: UInt8 = 0x3A

    /// Whether two field lists hold the same names and values in the same order.
    static func fieldsEqual(_ lhs: [(name: String, value: String)], _ rhs: [(name: String, value: String)]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Whether two field names are equal ignoring ASCII case (field names are case-insensitive, RFC 9110 §5.1).
    static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        equalsIgnoringCase(lhs.utf8, rhs.utf8)
    }

    /// Whether two byte strings are equal ignoring ASCII case.
    static func equalsIgnoringCase<L: Collection<UInt8>, R: Collection<UInt8>>(_ lhs: L, _ rhs: R) -> Bool {
        guard lhs.count == rhs.count else { return false }
        // Over contiguous bytes (native strings and their slices have them) the loop is a few
        // instructions a byte; a zipped pair of UTF-8 views' iterators is many times that, and
        // a response's fields are compared by name several times each.
        let contiguous = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in
                for index in left.indices where lowercased(left[index]) != lowercased(right[index]) {
                    return false
                }
                return true
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        return zip(lhs, rhs).allSatisfy { lowercased($0) == lowercased($1) }
    }

    /// `byte` with ASCII upper case letters made lower case.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// Whether `byte` is SP or HTAB, the optional whitespace around field values (RFC 9110 §5.6.3).
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// Whether `byte` may appear in a token such as a field name (RFC 9110 §5.6.2 tchar).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:  // DIGIT, ALPHA
            return true
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E:  // ! #$%&' * + - . ^_` | ~
            return true
        default:
            return false
        }
    }

    /// The value of a hexadecimal digit, or nil.
    static func hexValue(_ byte: UInt8) -> Int64? {
        switch byte {
        case 0x30...0x39: return Int64(byte - 0x30)
        case 0x41...0x46: return Int64(byte - 0x41 + 10)
        case 0x61...0x66: return Int64(byte - 0x61 + 10)
        default: return nil
        }
    }

    /// `bytes` as text: UTF-8 when valid, else ISO-8859-1, so that an odd value never fails the response.
    static func text(_ bytes: UnsafeRawBufferPointer, isASCII: Bool) -> String {
        let utf8 = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces invalid sequences, so valid UTF-8 is exactly what decodes to the same bytes.
        if isASCII || utf8.utf8.elementsEqual(bytes) { return utf8 }
        return String(String.UnicodeScalarView(bytes.lazy.map { Unicode.Scalar($0) }))
    }

    /// The ranges of the lines of a complete section, without their line endings; the section ends with LF.
    struct Lines: IteratorProtocol {
        /// The section.
        let bytes: UnsafeRawBufferPointer
        /// Where the next line starts.
        var position = 0

        /// The next line's range, without its LF or the CR before it.
        mutating func next() -> Range<Int>? {
            guard position < bytes.count, let base = bytes.baseAddress else { return nil }
            let lineFeed = memchr(base + position, Int32(HTTP1ResponseSyntax.lf), bytes.count - position)
            let end = lineFeed.map { base.distance(to: UnsafeRawPointer($0)) } ?? bytes.count
            let start = position
            position = end + 1
            return start..<(end > start && bytes[end - 1] == HTTP1ResponseSyntax.cr ? end - 1 : end)
        }
    }

    /// Parses a complete head: status line, header lines, blank line (RFC 9112 §4, §5).
    static func parseHead(
        _ bytes: UnsafeRawBufferPointer, limits: HTTP1ParserLimits
    ) throws(HTTP1ResponseError) -> HTTP1ResponseHead {
        var lines = Lines(bytes: bytes)
        let statusLine = UnsafeRawBufferPointer(rebasing: bytes[lines.next() ?? 0..<0])
        var head = try parseStatusLine(statusLine)
        head.headers = try parseFields(
            bytes, &lines, countLimit: limits.maximumHeaderCount, malformed: HTTP1ResponseError.malformedHeader)
        return head
    }

    /// Parses a complete trailer section: field lines, blank line (RFC 9112 §7.1.2).
    static func parseTrailers(
        _ bytes: UnsafeRawBufferPointer
    ) throws(HTTP1ResponseError) -> [(name: String, value: String)] {
        var lines = Lines(bytes: bytes)
        // `maximumTrailerBytes` bounds the number of trailers.
        return try parseFields(bytes, &lines, countLimit: nil, malformed: HTTP1ResponseError.malformedTrailer)
    }

    /// Parses `HTTP/1.x NNN reason` (RFC 9112 §4); the reason may be empty, with or without its SP.
    static func parseStatusLine(_ line: UnsafeRawBufferPointer) throws(HTTP1ResponseError) -> HTTP1ResponseHead {
        // Made only when thrown: an excerpt costs more than parsing a good line.
        func malformed() -> HTTP1ResponseError { .malformedStatusLine(HTTP1ResponseError.excerpt(line)) }
        // The protocol name is case-sensitive (RFC 9112 §2.3).
        guard line.starts(with: "HTTP/".utf8) else { throw malformed() }
        let versionEnd = line.firstIndex(of: space) ?? line.count
        let version = UnsafeRawBufferPointer(rebasing: line[0..<versionEnd])
        // RFC 9110 §6.2: a later minor version of HTTP/1 is read as the latest this parser knows, 1.1.
        guard version.count == 8, version[5] == 0x31, version[6] == 0x2E, (0x30...0x39).contains(version[7]) else {
            throw .unsupportedVersion(HTTP1ResponseError.excerpt(version))
        }
        let minorVersion = version[7] == 0x30 ? 0 : 1
        let codeStart = versionEnd + 1
        guard versionEnd < line.count, line.count >= codeStart + 3 else { throw malformed() }
        var statusCode = 0
        for byte in line[codeStart..<codeStart + 3] {
            guard (0x30...0x39).contains(byte) else { throw malformed() }
            statusCode = statusCode * 10 + Int(byte - 0x30)
        }
        let reasonStart = codeStart + 3
        guard statusCode >= 100, reasonStart == line.count || line[reasonStart] == space else { throw malformed() }
        let reason = UnsafeRawBufferPointer(rebasing: line[min(reasonStart + 1, line.count)...])
        var isASCII = true
        for byte in reason {
            // A CR here is not part of a line ending: RFC 9112 §2.2 makes a bare CR invalid.
            guard byte != 0 && byte != cr else { throw malformed() }
            isASCII = isASCII && byte < 0x80
        }
        return HTTP1ResponseHead(
            minorVersion: minorVersion, statusCode: statusCode, reason: text(reason, isASCII: isASCII))
    }

    /// Parses the field lines that follow in `lines` up to the blank line (RFC 9112 §5): `name: value`, the
    /// name a token, the value trimmed; an obs-fold line continues the previous field with a single SP. More
    /// than `countLimit` fields is `tooManyHeaders`.
    static func parseFields(
        _ bytes: UnsafeRawBufferPointer, _ lines: inout Lines, countLimit: Int?,
        malformed: (String) -> HTTP1ResponseError
    ) throws(HTTP1ResponseError) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        // Most fields take 20 to 60 bytes (short ones are common: `Content-Length: 123`):
        // one allocation, rarely too small, instead of one per doubling.
        fields.reserveCapacity(bytes.count / 16 + 1)
        while let range = lines.next(), !range.isEmpty {
            let line = UnsafeRawBufferPointer(rebasing: bytes[range])
            if isWhitespace(line[0]) {
                // RFC 9112 §5.2: a user agent replaces an obs-fold with SP; one with nothing to continue is invalid.
                guard let last = fields.indices.last else { throw malformed(HTTP1ResponseError.excerpt(line)) }
                let continuation = try value(line, from: 0, malformed: malformed)
                if fields[last].value.isEmpty {
                    fields[last].value = continuation
                } else if !continuation.isEmpty {
                    fields[last].value += " " + continuation
                }
                continue
            }
            var nameEnd = 0
            while nameEnd < line.count && isTokenByte(line[nameEnd]) { nameEnd += 1 }
            // RFC 9112 §5.1: no whitespace between name and colon; anything else before it is not a token.
            guard nameEnd > 0, nameEnd < line.count, line[nameEnd] == colon else {
                throw malformed(HTTP1ResponseError.excerpt(line))
            }
            if let countLimit, fields.count >= countLimit { throw .tooManyHeaders(limit: countLimit) }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<nameEnd]), as: UTF8.self)
            fields.append((name: name, value: try value(line, from: nameEnd + 1, malformed: malformed)))
        }
        return fields
    }

    /// The value in `line[start...]` trimmed of SP and HTAB; NUL and a bare CR are invalid (RFC 9110 §5.5).
    static func value(
        _ line: UnsafeRawBufferPointer, from start: Int, malformed: (String) -> HTTP1ResponseError
    ) throws(HTTP1ResponseError) -> String {
        var lower = start
        var upper = line.count
        while lower < upper && isWhitespace(line[lower]) { lower += 1 }
        while upper > lower && isWhitespace(line[upper - 1]) { upper -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[lower..<upper])
        var isASCII = true
        for byte in value {
            guard byte != 0 && byte != cr else { throw malformed(HTTP1ResponseError.excerpt(line)) }
            isASCII = isASCII && byte < 0x80
        }
        return text(value, isASCII: isASCII)
    }

    /// Parses a complete chunk-size line: `hex-size [BWS ; extensions] CRLF` (RFC 9112 §7.1, §7.1.1).
    static func parseChunkSize(_ bytes: UnsafeRawBufferPointer) throws(HTTP1ResponseError) -> Int64 {
        var lines = Lines(bytes: bytes)
        let line = UnsafeRawBufferPointer(rebasing: bytes[lines.next() ?? 0..<0])
        // Made only when thrown: an excerpt costs more than parsing a good line.
        func malformed() -> HTTP1ResponseError { .malformedChunkSize(HTTP1ResponseError.excerpt(line)) }
        var size: Int64 = 0
        var index = 0
        while index < line.count, let digit = hexValue(line[index]) {
            // Shifting in another digit must not overflow: a size this large is an error, not a wrap.
            guard size <= Int64.max >> 4 else { throw malformed() }
            size = size << 4 | digit
            index += 1
        }
        guard index > 0 else { throw malformed() }
        while index < line.count && isWhitespace(line[index]) { index += 1 }
        guard index < line.count else { return size }
        guard line[index] == 0x3B else { throw malformed() }  // ";" starts the extensions, which are ignored
        for byte in line[index...] where (byte < space && byte != tab) || byte == 0x7F {
            throw malformed()
        }
        return size
    }

    /// How the body of the final `head` is delimited and whether the connection stays usable (RFC 9112 §6.3,
    /// §9.3).
    static func framing(
        of head: HTTP1ResponseHead, answersHEAD: Bool, answersCONNECT: Bool
    ) throws(HTTP1ResponseError) -> (HTTP1BodyFraming, keepsConnection: Bool) {
        var closes = false
        var keepsAlive = false
        var hasTransferEncoding = false
        var isChunked = false
        var contentLengths: [String] = []
        for field in head.headers {
            if namesEqual(field.name, "connection") {
                forEachListElement(field.value) { option in
                    closes = closes || equalsIgnoringCase(option, "close".utf8)
                    keepsAlive = keepsAlive || equalsIgnoringCase(option, "keep-alive".utf8)
                }
            } else if namesEqual(field.name, "transfer-encoding") {
                // Several fields make one list; what counts is the last coding (RFC 9112 §6.1).
                hasTransferEncoding = true
                var last: Substring.UTF8View?
                forEachListElement(field.value) { coding in
                    if !coding.isEmpty { last = coding }
                }
                if let last {
                    isChunked = equalsIgnoringCase(last, "chunked".utf8)
                }
            } else if namesEqual(field.name, "content-length") {
                contentLengths.append(field.value)
            }
        }
        let persistent = head.minorVersion >= 1 ? !closes : keepsAlive && !closes
        if head.statusCode == 101 { return (.none, false) }
        if answersCONNECT && (200...299).contains(head.statusCode) { return (.none, true) }
        if answersHEAD || head.statusCode == 204 || head.statusCode == 304 { return (.none, persistent) }
        if hasTransferEncoding {
            // TE overrides CL, but both together (or TE in HTTP/1.0) hint at smuggling: use this
            // connection for nothing else (RFC 9112 §6.1, §6.3).
            let keeps = persistent && isChunked && contentLengths.isEmpty && head.minorVersion >= 1
            return (isChunked ? .chunked : .untilClose, keeps)
        }
        guard !contentLengths.isEmpty else { return (.untilClose, false) }
        return (.length(try contentLength(contentLengths)), persistent)
    }

    /// The comma-separated elements of a list value, trimmed of SP and HTAB (empty ones kept).
    static func listElements(_ value: String) -> [Substring.UTF8View] {
        var elements: [Substring.UTF8View] = []
        forEachListElement(value) { elements.append($0) }
        return elements
    }

    /// Calls `body` with each comma-separated element of a list value, in order, trimmed of
    /// SP and HTAB (empty ones included): what `listElements` returns, without building
    /// arrays (every response's `Connection` field is read so).
    static func forEachListElement(_ value: String, _ body: (Substring.UTF8View) -> Void) {
        let bytes = Substring(value).utf8
        var start = bytes.startIndex
        while true {
            var end = start
            while end < bytes.endIndex && bytes[end] != 0x2C { bytes.formIndex(after: &end) }
            var lower = start
            var upper = end
            while lower < upper && isWhitespace(bytes[lower]) { bytes.formIndex(after: &lower) }
            while upper > lower && isWhitespace(bytes[bytes.index(before: upper)]) { bytes.formIndex(before: &upper) }
            body(bytes[lower..<upper])
            guard end < bytes.endIndex else { return }
            start = bytes.index(after: end)
        }
    }

    /// The one length that every `Content-Length` value states (RFC 9112 §6.3: each element a decimal integer,
    /// identical ones allowed, differing ones an error).
    static func contentLength(_ values: [String]) throws(HTTP1ResponseError) -> Int64 {
        var lengths: [Int64] = []
        for value in values {
            for element in listElements(value) {
                guard let length = decimal(element) else {
                    throw .invalidContentLength(HTTP1ResponseError.excerpt(value))
                }
                lengths.append(length)
            }
        }
        guard let first = lengths.first, lengths.allSatisfy({ $0 == first }) else {
            throw .conflictingContentLengths
        }
        return first
    }

    /// `digits` as a non-negative decimal integer, or nil when empty, not all digits or too large for Int64.
    static func decimal(_ digits: Substring.UTF8View) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = shifted.addingReportingOverflow(Int64(byte - 0x30))
            guard !overflowShift && !overflowSum else { return nil }
            value = sum
        }
        return value
    }
}
