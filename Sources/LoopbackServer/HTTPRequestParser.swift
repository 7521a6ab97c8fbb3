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

    /// Calls `body` with the first `count` unconsumed bytes, without consuming them.
    func withFront<Result>(_ count: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[start..<start + count]))
        }
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

/// An incremental parser of request heads: feed it the connection's buffer after every
/// read; it consumes a head's bytes and never scans a byte twice. The body that follows is
/// read by a `RequestBodyDecoder` for the framing the head announced.
struct HTTPRequestParser {
    /// The parser's progress through the current head.
    enum Step {
        /// More bytes are needed.
        case needMore
        /// A whole head; its body (if any) follows in the buffer.
        case head(RequestHead, BodyFraming)
        /// The request is malformed or unsupported.
        case failure(ParseFailure)
    }

    /// The largest request line plus header fields accepted (431 beyond).
    static let maxHeadBytes = 64 * 1024

    private var scanned = 0

    /// Whether part of a head has been received (a client closing now leaves it unanswered).
    func hasPartialHead(_ buffer: InputBuffer) -> Bool {
        !buffer.isEmpty
    }

    /// Consumes a head from `buffer` if a whole one is there, and says what happened.
    mutating func advance(_ buffer: inout InputBuffer) -> Step {
        // Clients may send stray CRLFs between requests (RFC 9112 §2.2).
        while !buffer.isEmpty && (buffer[0] == 0x0D || buffer[0] == 0x0A) && scanned == 0 {
            buffer.skip(1)
        }
        guard let headLength = headEnd(buffer, scanned: scanned) else {
            if buffer.count > Self.maxHeadBytes {
                return .failure(ParseFailure(status: 431, reason: "request head larger than 64 KB"))
            }
            scanned = max(0, buffer.count - 3)
            return .needMore
        }
        scanned = 0
        guard headLength <= Self.maxHeadBytes else {
            return .failure(ParseFailure(status: 431, reason: "request head larger than 64 KB"))
        }
        do throws(ParseFailure) {
            let head = try Self.parseHead(buffer.take(headLength))
            return .head(head, try Self.framing(of: head.headers))
        } catch {
            return .failure(error)
        }
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

    static func framing(of headers: LoopbackHeaders) throws(ParseFailure) -> BodyFraming {
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
