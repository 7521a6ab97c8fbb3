import Foundation

/// Bytes received on a connection and not yet consumed by the parser.
struct InputBuffer {
    private(set) var bytes: [UInt8] = []
    /// Index of the first unconsumed byte.
    private(set) var start = 0

    /// The number of unconsumed bytes.
    var count: Int { bytes.count - start }

    /// Whether every received byte has been consumed.
    var isEmpty: Bool { start == bytes.count }

    /// The unconsumed byte at `offset` from the start.
    subscript(offset: Int) -> UInt8 { bytes[start + offset] }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 && start > bytes.count / 2 {
            bytes.removeFirst(start)
            start = 0
        }
        bytes.append(contentsOf: chunk)
    }

    /// Removes `count` bytes from the front and returns them.
    mutating func take(_ count: Int) -> ArraySlice<UInt8> {
        let slice = bytes[start..<start + count]
        start += count
        return slice
    }

    /// Drops `count` bytes from the front.
    mutating func skip(_ count: Int) {
        start += count
    }

    /// The offset of the first `byte` at or after `offset`, or nil.
    func firstIndex(of byte: UInt8, from offset: Int) -> Int? {
        var index = start + offset
        while index < bytes.count {
            if bytes[index] == byte { return index - start }
            index += 1
        }
        return nil
    }
}

/// A request line and header fields, parsed and validated.
struct RequestHead {
    let method: String
    let target: String
    let version: String
    let minorVersion: Int
    let headers: LoopbackHeaders

    /// Whether the client wants the connection kept open after the response.
    var wantsKeepAlive: Bool {
        if headers.containsToken("close", in: "Connection") { return false }
        return minorVersion >= 1 || headers.containsToken("keep-alive", in: "Connection")
    }
}

/// A request the server cannot answer normally: it sends `status` and closes.
struct ParseFailure: Error, Equatable {
    let status: Int
    let reason: String
}

/// An incremental HTTP/1.1 request parser: feed it the connection's buffer after every
/// read; it consumes a request's bytes and never scans a byte twice (10 MB bodies stay linear).
struct HTTPRequestParser {
    /// The parser's progress through the current request.
    enum Step {
        /// More bytes are needed.
        case needMore
        /// The head asked for `Expect: 100-continue` and the body has not arrived yet.
        case sendContinue
        /// A whole request.
        case request(RequestHead, Data)
        /// The request is malformed or unsupported.
        case failure(ParseFailure)
    }

    /// The largest request line plus header fields accepted (431 beyond).
    static let maxHeadBytes = 64 * 1024
    /// The largest request body accepted (413 beyond).
    static let maxBodyBytes = 512 * 1024 * 1024

    private enum State {
        case head(scanned: Int)
        case fixedBody(length: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
    }

    private var state = State.head(scanned: 0)
    private var head: RequestHead?
    private var body: [UInt8] = []
    private var continueSent = false

    /// Whether part of a request has been received (a client closing now leaves it unanswered).
    func hasPartialRequest(_ buffer: InputBuffer) -> Bool {
        if case .head = state { return !buffer.isEmpty }
        return true
    }

    /// Consumes as much of `buffer` as it can and says what happened.
    mutating func advance(_ buffer: inout InputBuffer) -> Step {
        while true {
            switch state {
            case .head(let scanned):
                // Clients may send stray CRLFs between requests (RFC 9112 §2.2).
                while !buffer.isEmpty && (buffer[0] == 0x0D || buffer[0] == 0x0A) && scanned == 0 {
                    buffer.skip(1)
                }
                guard let headLength = headEnd(buffer, scanned: scanned) else {
                    if buffer.count > Self.maxHeadBytes {
                        return .failure(ParseFailure(status: 431, reason: "request head larger than 64 KB"))
                    }
                    state = .head(scanned: max(0, buffer.count - 3))
                    return .needMore
                }
                guard headLength <= Self.maxHeadBytes else {
                    return .failure(ParseFailure(status: 431, reason: "request head larger than 64 KB"))
                }
                let headBytes = buffer.take(headLength)
                let parsed: RequestHead
                let framing: Framing
                do throws(ParseFailure) {
                    parsed = try Self.parseHead(headBytes)
                    framing = try Self.framing(of: parsed.headers)
                } catch {
                    return .failure(error)
                }
                head = parsed
                body = []
                continueSent = false
                switch framing {
                case .length(0):
                    return finish()
                case .length(let length):
                    guard length <= Self.maxBodyBytes else {
                        return .failure(ParseFailure(status: 413, reason: "request body larger than 512 MB"))
                    }
                    state = .fixedBody(length: length)
                case .chunked:
                    state = .chunkSize
                }
            case .fixedBody(let length):
                guard buffer.count >= length else { return continueOrWait(buffer) }
                body = Array(buffer.take(length))
                return finish()
            case .chunkSize:
                guard let lineEnd = buffer.firstIndex(of: 0x0A, from: 0) else {
                    if buffer.count > 4096 {
                        return .failure(ParseFailure(status: 400, reason: "chunk size line too long"))
                    }
                    return continueOrWait(buffer)
                }
                let line = buffer.take(lineEnd + 1)
                guard let size = Self.chunkSize(line) else {
                    return .failure(ParseFailure(status: 400, reason: "malformed chunk size"))
                }
                if size == 0 {
                    state = .trailers
                } else {
                    guard body.count + size <= Self.maxBodyBytes else {
                        return .failure(ParseFailure(status: 413, reason: "request body larger than 512 MB"))
                    }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                guard !buffer.isEmpty else { return continueOrWait(buffer) }
                let count = min(remaining, buffer.count)
                body.append(contentsOf: buffer.take(count))
                state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            case .chunkDataEnd:
                guard buffer.count >= 1 else { return .needMore }
                if buffer[0] == 0x0A {
                    buffer.skip(1)
                } else if buffer[0] == 0x0D {
                    guard buffer.count >= 2 else { return .needMore }
                    guard buffer[1] == 0x0A else {
                        return .failure(ParseFailure(status: 400, reason: "chunk data not followed by CRLF"))
                    }
                    buffer.skip(2)
                } else {
                    return .failure(ParseFailure(status: 400, reason: "chunk data longer than its size"))
                }
                state = .chunkSize
            case .trailers:
                guard let lineEnd = buffer.firstIndex(of: 0x0A, from: 0) else {
                    if buffer.count > Self.maxHeadBytes {
                        return .failure(ParseFailure(status: 431, reason: "trailer fields too large"))
                    }
                    return .needMore
                }
                let line = buffer.take(lineEnd + 1)
                if line.count == 1 || (line.count == 2 && line.first == 0x0D) {
                    return finish()
                }
            }
        }
    }

    private mutating func finish() -> Step {
        state = .head(scanned: 0)
        let request = Step.request(head ?? RequestHead.empty, Data(body))
        head = nil
        body = []
        return request
    }

    /// `.sendContinue` once, when the client waits for it before sending its body.
    private mutating func continueOrWait(_ buffer: InputBuffer) -> Step {
        guard !continueSent, let head, buffer.isEmpty, head.minorVersion >= 1,
            head.headers.containsToken("100-continue", in: "Expect")
        else { return .needMore }
        continueSent = true
        return .sendContinue
    }

    /// The length of the head including its blank line, or nil if the blank line has not
    /// arrived. Lines end in LF, optionally preceded by CR.
    private func headEnd(_ buffer: InputBuffer, scanned: Int) -> Int? {
        var offset = scanned
        while let newline = buffer.firstIndex(of: 0x0A, from: offset) {
            // A blank line: LF right after the previous LF, or CR LF right after it.
            if newline >= 1 && buffer[newline - 1] == 0x0A { return newline + 1 }
            if newline >= 2 && buffer[newline - 1] == 0x0D && buffer[newline - 2] == 0x0A { return newline + 1 }
            offset = newline + 1
        }
        return nil
    }

    private enum Framing {
        case length(Int)
        case chunked
    }

    private static func framing(of headers: LoopbackHeaders) throws(ParseFailure) -> Framing {
        let transferEncodings = headers.values(for: "Transfer-Encoding")
        let lengths = headers.values(for: "Content-Length")
        if !transferEncodings.isEmpty {
            guard lengths.isEmpty else {
                throw ParseFailure(status: 400, reason: "both Transfer-Encoding and Content-Length")
            }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces() }
            guard codings.count == 1, let coding = codings.first, LoopbackHeaders.namesMatch(coding, "chunked")
            else {
                throw ParseFailure(status: 501, reason: "unsupported Transfer-Encoding")
            }
            return .chunked
        }
        var length: Int?
        for value in lengths {
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = part.trimmingSpaces()
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = Int(text)
                else { throw ParseFailure(status: 400, reason: "invalid Content-Length") }
                if let length, length != parsed {
                    throw ParseFailure(status: 400, reason: "conflicting Content-Length values")
                }
                length = parsed
            }
        }
        return .length(length ?? 0)
    }

    private static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        var size = 0
        var digits = 0
        for byte in line {
            if let value = LoopbackRequest.hexValue(byte) {
                guard digits < 15 else { return nil }
                size = size << 4 | Int(value)
                digits += 1
            } else if byte == UInt8(ascii: ";") || byte == 0x0D || byte == 0x0A || byte == 0x20 || byte == 0x09 {
                break
            } else {
                return nil
            }
        }
        return digits > 0 ? size : nil
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(ParseFailure) -> RequestHead {
        var lines: [ArraySlice<UInt8>] = []
        for var line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if line.last == 0x0D { line = line.dropLast() }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else {
            throw ParseFailure(status: 400, reason: "missing request line")
        }
        for line in lines {
            // Control characters other than HTAB (a bare CR, NUL, …) are never valid in a head.
            if line.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                throw ParseFailure(status: 400, reason: "control character in request head")
            }
        }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw ParseFailure(status: 400, reason: "malformed request line") }
        let method = String(decoding: parts[0], as: UTF8.self)
        guard !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            throw ParseFailure(status: 400, reason: "invalid method")
        }
        let target = try parseTarget(String(decoding: parts[1], as: UTF8.self), method: method)
        let version = String(decoding: parts[2], as: UTF8.self)
        let minor = try parseVersion(parts[2])
        var headers = LoopbackHeaders()
        for line in lines.dropFirst() {
            guard let first = line.first, first != 0x20, first != 0x09 else {
                throw ParseFailure(status: 400, reason: "obsolete header line folding")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw ParseFailure(status: 400, reason: "header line without a colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
                throw ParseFailure(status: 400, reason: "invalid header name")
            }
            let value = String(decoding: line[line.index(after: colon)...], as: UTF8.self).trimmingSpaces()
            headers.add(name: String(decoding: name, as: UTF8.self), value: String(value))
        }
        return RequestHead(method: method, target: target, version: version, minorVersion: minor, headers: headers)
    }

    private static func parseTarget(_ target: String, method: String) throws(ParseFailure) -> String {
        if target.hasPrefix("/") { return target }
        if target == "*" && method == "OPTIONS" { return target }
        // Absolute form (`GET http://host/path HTTP/1.1`), as sent to proxies.
        if let components = URLComponents(string: target), components.scheme != nil, components.host != nil {
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
        }
        throw ParseFailure(status: 400, reason: "invalid request target")
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(ParseFailure) -> Int {
        let text = Array(bytes)
        guard text.count == 8, text.starts(with: Array("HTTP/".utf8)), text[6] == UInt8(ascii: "."),
            let major = digit(text[5]), let minor = digit(text[7])
        else { throw ParseFailure(status: 400, reason: "invalid HTTP version") }
        guard major == 1 else { throw ParseFailure(status: 505, reason: "only HTTP/1.x is supported") }
        return minor
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    /// Whether `byte` may appear in a method or header name (RFC 9110 `tchar`).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension RequestHead {
    static let empty = RequestHead(method: "GET", target: "/", version: "HTTP/1.1", minorVersion: 1, headers: [:])
}
