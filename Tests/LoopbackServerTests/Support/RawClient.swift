#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LoopbackServer

/// Why a raw-socket operation failed.
enum RawClientError: Error, Equatable {
    case connectFailed(errno: Int32)
    case sendFailed(errno: Int32)
    case receiveFailed(errno: Int32)
    /// The server closed the connection before a whole response arrived.
    case closedEarly(received: Int)
    case malformedResponse(String)
}

/// A response read off a raw socket.
struct RawResponse {
    var status: Int
    var headers: LoopbackHeaders
    var body: [UInt8]
    var wasChunked: Bool
    /// The sizes of the chunks, when the body was chunked.
    var chunkSizes: [Int]

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking HTTP client over a plain TCP socket, for what URLSession cannot show: the bytes
/// on the wire, pipelining, malformed requests, half-sent requests. Every read times out
/// after `timeout` seconds so a test can fail but never hang.
final class RawClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    /// Connects to 127.0.0.1:`port`. A `receiveBufferSize` caps the socket's receive buffer
    /// (and so the TCP window), for tests of a server that a client stops reading.
    init(port: Int, timeout: TimeInterval = 10, receiveBufferSize: Int32? = nil) throws {
        #if canImport(Glibc)
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RawClientError.connectFailed(errno: errno) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBufferSize {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Self.closeDescriptor(fd)
            throw RawClientError.connectFailed(errno: error)
        }
    }

    deinit {
        if !closed { Self.closeDescriptor(fd) }
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try send($0) }
    }

    func send(_ data: Data) throws {
        try data.withUnsafeBytes { try send($0) }
    }

    func send(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let written = Glibc.send(fd, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            #else
                let written = Darwin.send(fd, base + offset, bytes.count - offset, 0)
            #endif
            if written < 0 {
                if errno == EINTR { continue }
                throw RawClientError.sendFailed(errno: errno)
            }
            offset += written
        }
    }

    /// Sends `bytes` as one chunk of a chunked body (empty: the last chunk).
    func sendChunk(_ bytes: Data) throws {
        try send("\(String(bytes.count, radix: 16))\r\n")
        try send(bytes)
        try send("\r\n")
    }

    /// Sends end of stream; the socket stays open for reading.
    func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the socket. With `reset`, the close sends RST instead of FIN.
    func close(reset: Bool = false) {
        guard !closed else { return }
        if reset {
            var lingerOption = linger(l_onoff: 1, l_linger: 0)
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &lingerOption, socklen_t(MemoryLayout<linger>.size))
        }
        closed = true
        Self.closeDescriptor(fd)
    }

    private static func closeDescriptor(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }

    /// Reads one response; `forHead` skips the body as a HEAD response has none.
    func readResponse(forHead: Bool = false) throws -> RawResponse {
        var response = try readHead()
        let status = response.status
        let headers = response.headers
        if forHead || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
            response.wasChunked = true
            while let chunk = try readChunk() {
                response.chunkSizes.append(chunk.count)
                response.body.append(contentsOf: chunk)
            }
        } else if let lengthText = headers["Content-Length"], let length = Int(lengthText) {
            try fill(length)
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else {
            response.body = try readUntilClose()
        }
        return response
    }

    /// Reads one response and decodes its body as JSON.
    func readJSON<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONDecoder().decode(type, from: Data(try readResponse().body))
    }

    /// Reads the next chunk of a chunked body (after `readHead()`).
    /// - Returns: its bytes, or nil for the terminating chunk.
    /// - Throws: `RawClientError.closedEarly` when the server closes before a whole chunk.
    func readChunk() throws -> [UInt8]? {
        let lineEnd = try readUntil(Array("\r\n".utf8))
        let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self)
        buffer.removeFirst(lineEnd + 2)
        guard let size = Int(sizeText, radix: 16) else { throw RawClientError.malformedResponse(sizeText) }
        try fill(size + 2)
        if size == 0 {
            buffer.removeFirst(2)
            return nil
        }
        defer { buffer.removeFirst(size + 2) }
        return Array(buffer[..<size])
    }

    /// Reads the chunks of a chunked body (after `readHead()`) until the terminating chunk
    /// or until the server closes the connection.
    /// - Returns: the chunks, and whether the terminating chunk came (a clean end).
    func readChunks() throws -> (chunks: [[UInt8]], complete: Bool) {
        var chunks: [[UInt8]] = []
        do {
            while let chunk = try readChunk() { chunks.append(chunk) }
            return (chunks, true)
        } catch RawClientError.closedEarly {
            return (chunks, false)
        }
    }

    /// Reads a response's status line and header fields, leaving its body unread.
    func readHead() throws -> RawResponse {
        let headEnd = try readUntil(Array("\r\n\r\n".utf8))
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw RawClientError.malformedResponse(headText)
        }
        var headers = LoopbackHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw RawClientError.malformedResponse(headText) }
            headers.add(
                name: String(line[..<colon]),
                value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return RawResponse(status: status, headers: headers, body: [], wasChunked: false, chunkSizes: [])
    }

    /// Reads up to `count` body bytes (a `Content-Length` body after `readHead()`), handing
    /// them to `consume` as they arrive without keeping them.
    /// - Returns: how many arrived before the count was reached or the server closed.
    @discardableResult
    func readBody(count: Int, _ consume: (ArraySlice<UInt8>) throws -> Void = { _ in }) throws -> Int {
        var received = min(count, buffer.count)
        if received > 0 {
            try consume(buffer[..<received])
            buffer.removeFirst(received)
        }
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while received < count {
            let wanted = min(chunk.count, count - received)
            let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, wanted, 0) }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw RawClientError.receiveFailed(errno: errno)
            }
            try consume(chunk[..<got])
            received += got
        }
        return received
    }

    /// The bytes that arrive next (what is buffered, else one read); empty at end of stream.
    func receiveAvailable() throws -> [UInt8] {
        if buffer.isEmpty { _ = try receive() }
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads until the server closes the connection; returns everything not yet consumed.
    func readUntilClose() throws -> [UInt8] {
        while try receive() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Whether the server closed the connection (reads until end of stream or reset).
    func serverClosed() -> Bool {
        do {
            while try receive() {}
            return true
        } catch RawClientError.receiveFailed(let code) {
            return code == ECONNRESET
        } catch {
            return false
        }
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for start in searchFrom...(buffer.count - marker.count)
                where buffer[start..<start + marker.count].elementsEqual(marker) {
                    return start
                }
                searchFrom = buffer.count - marker.count + 1
            }
            guard try receive() else { throw RawClientError.closedEarly(received: buffer.count) }
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count {
            guard try receive() else { throw RawClientError.closedEarly(received: buffer.count) }
        }
    }

    /// Reads what is available; false at end of stream.
    private func receive() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
            if count == 0 { return false }
            if errno == EINTR { continue }
            throw RawClientError.receiveFailed(errno: errno)
        }
    }
}
