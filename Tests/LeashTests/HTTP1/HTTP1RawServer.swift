import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc

    private let systemClose = Glibc.close
    private typealias SystemLinger = Glibc.linger
    private let streamSocket = Int32(SOCK_STREAM.rawValue)
    private let shutdownBoth = Int32(SHUT_RDWR)
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Musl)
    import Musl

    private let systemClose = Musl.close
    private typealias SystemLinger = Musl.linger
    private let streamSocket = SOCK_STREAM
    private let shutdownBoth = SHUT_RDWR
    private let sendFlags = MSG_NOSIGNAL
#elseif canImport(Darwin)
    import Darwin

    private let systemClose = Darwin.close
    private typealias SystemLinger = Darwin.linger
    private let streamSocket = SOCK_STREAM
    private let shutdownBoth = SHUT_RDWR
    private let sendFlags: Int32 = 0
#endif

/// A bare TCP server on 127.0.0.1 for the `HTTP1Transport` tests that need bytes no
/// `LoopbackServer` route writes: a connection closed while idle, a proxy that records the
/// request line as sent, a server answering with broken responses. Each accepted connection
/// runs `handler` on a thread of its own; what the handler reads with `readRequest` is
/// logged (`requests`), and the connection is closed when the handler returns (if it did not
/// close or reset it itself). `stop()` (also run by `deinit`) closes the listener and every
/// connection, and waits for their threads.
final class HTTP1RawServer: @unchecked Sendable {
    // @unchecked: `state` is behind `condition`; the rest is immutable.

    /// A request head read by a handler.
    struct Request: Equatable, Sendable {
        /// The number of the connection it came on (from 0, in the order of acceptance).
        let connection: Int
        /// Its request line, as sent (`GET /path HTTP/1.1`).
        let line: String
        /// Its header fields, as sent, in order.
        let headers: [(name: String, value: String)]
        /// Its body (read by `Content-Length`; chunked bodies are not read).
        let body: Data

        /// The request target, the second word of the request line.
        var target: String {
            let words = line.split(separator: " ")
            return words.count > 1 ? String(words[1]) : ""
        }

        /// The value of the first field named `name` (case-insensitively).
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        static func == (lhs: Request, rhs: Request) -> Bool {
            lhs.connection == rhs.connection && lhs.line == rhs.line && lhs.body == rhs.body
                && lhs.headers.map(\.name) == rhs.headers.map(\.name)
                && lhs.headers.map(\.value) == rhs.headers.map(\.value)
        }
    }

    /// What the server did so far.
    struct Log: Sendable {
        /// Connections accepted.
        var accepted = 0
        /// Connections whose socket the server has closed (or reset).
        var closed = 0
        /// The requests read, in order.
        var requests: [Request] = []
    }

    private struct State {
        var log = Log()
        var open: Set<Int32> = []
        var stopped = false
    }

    /// The port, on 127.0.0.1.
    let port: Int
    private let listener: Int32
    private let handler: @Sendable (HTTP1RawConnection) -> Void
    private let condition = NSCondition()
    private var state = State()
    private let threads = DispatchGroup()

    /// Listens on an ephemeral port of 127.0.0.1 and serves every connection with `handler`.
    init(handler: @escaping @Sendable (HTTP1RawConnection) -> Void) throws {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            _ = systemClose(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        self.handler = handler
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            threads.leave()
        }
        thread.name = "HTTP1RawServer.accept"
        thread.start()
    }

    deinit {
        stop()
    }

    /// `http://127.0.0.1:PORT` and `path`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// What the server did so far.
    var log: Log {
        condition.lock()
        defer { condition.unlock() }
        return state.log
    }

    /// Waits until `isSatisfied` holds for the log, up to `timeout` seconds; returns whether
    /// it held.
    func waitUntil(timeout: TimeInterval = 5, _ isSatisfied: (Log) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !isSatisfied(state.log) {
            if !condition.wait(until: deadline) { return isSatisfied(state.log) }
        }
        return true
    }

    /// Closes the listener and every connection, and waits (up to 5 s) for their threads.
    func stop() {
        condition.lock()
        let wasStopped = state.stopped
        state.stopped = true
        for fd in state.open { shutdown(fd, shutdownBoth) }
        condition.unlock()
        guard !wasStopped else { return }
        // On Linux, shutting a listening socket down wakes the accept blocked on it.
        shutdown(listener, shutdownBoth)
        _ = threads.wait(timeout: .now() + 5)
        _ = systemClose(listener)
    }

    private func acceptLoop() {
        var number = 0
        while true {
            let fd = accept(listener, nil, nil)
            condition.lock()
            let stopped = state.stopped
            if fd >= 0 && !stopped {
                state.open.insert(fd)
                state.log.accepted += 1
                condition.broadcast()
            }
            condition.unlock()
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            if stopped {
                _ = systemClose(fd)
                return
            }
            var noDelay: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let connection = HTTP1RawConnection(fd: fd, number: number, server: self)
            number += 1
            threads.enter()
            let thread = Thread { [self] in
                handler(connection)
                connection.close()
                threads.leave()
            }
            thread.name = "HTTP1RawServer.connection"
            thread.start()
        }
    }

    /// Closes `fd` (resetting it if `reset`), once, and counts it.
    fileprivate func close(_ fd: Int32, reset: Bool) {
        condition.lock()
        defer { condition.unlock() }
        guard state.open.remove(fd) != nil else { return }
        if reset {
            var linger = SystemLinger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<SystemLinger>.size))
        }
        // Closed under the lock: `stop()` never shuts down a descriptor number reused since.
        _ = systemClose(fd)
        state.log.closed += 1
        condition.broadcast()
    }

    fileprivate func record(_ request: Request) {
        condition.lock()
        state.log.requests.append(request)
        condition.broadcast()
        condition.unlock()
    }
}

/// One connection of an `HTTP1RawServer`, used by its handler's thread only.
final class HTTP1RawConnection: @unchecked Sendable {
    // @unchecked: used by one thread, the connection's.

    /// The connection's number, from 0 in the order of acceptance.
    let number: Int
    private let fd: Int32
    private unowned let server: HTTP1RawServer
    /// Bytes read and not yet consumed.
    private var buffer: [UInt8] = []
    private var isClosed = false

    fileprivate init(fd: Int32, number: Int, server: HTTP1RawServer) {
        self.fd = fd
        self.number = number
        self.server = server
    }

    /// Reads one request (its head, and a body of `Content-Length` bytes), logs it and returns
    /// it; nil if the connection ends, fails, or sends no complete head within `timeout`.
    func readRequest(timeout: TimeInterval = 5) -> HTTP1RawServer.Request? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var headEnd: Int?
        while true {
            headEnd = Self.endOfHead(in: buffer)
            if headEnd != nil { break }
            guard fill(until: deadline) else { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let line = lines.isEmpty ? "" : lines.removeFirst()
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return (String(line[..<colon]), value)
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        while buffer.count < length {
            guard fill(until: deadline) else { return nil }
        }
        let body = Data(buffer.prefix(length))
        buffer.removeFirst(length)
        let request = HTTP1RawServer.Request(connection: number, line: line, headers: headers, body: body)
        server.record(request)
        return request
    }

    /// Writes all of `bytes`; false if the connection failed (the client went away).
    @discardableResult
    func write(_ bytes: Data) -> Bool {
        guard !isClosed else { return false }
        return bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, sendFlags)
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }

    /// Writes `text` as UTF-8.
    @discardableResult
    func write(_ text: String) -> Bool {
        write(Data(text.utf8))
    }

    /// Waits until the client closes its side (or `timeout` passes), dropping what it sends;
    /// returns whether it closed.
    @discardableResult
    func waitForClientClose(timeout: TimeInterval = 5) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while fill(until: deadline) { buffer.removeAll() }
        return Date() < deadline
    }

    /// Closes the connection cleanly (FIN).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        server.close(fd, reset: false)
    }

    /// Resets the connection (RST).
    func reset() {
        guard !isClosed else { return }
        isClosed = true
        server.close(fd, reset: true)
    }

    /// Reads what arrives into `buffer`, waiting until `deadline`; false at the end of the
    /// stream, on a failure, or at the deadline.
    private func fill(until deadline: Date) -> Bool {
        guard !isClosed else { return false }
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { return false }
        var watched = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&watched, 1, Int32(remaining * 1000) + 1)
        if ready < 0 { return errno == EINTR }
        if ready == 0 { return false }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { return count < 0 && errno == EINTR }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    /// The length of the head at the start of `bytes` (through its blank line), if complete.
    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }
}
