import Foundation
import Leash
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Errors of the test's own socket helpers.
struct TestSocketError: Error, CustomStringConvertible {
    /// What failed, with its `errno`.
    var description: String

    /// An error for `call`, with the current `errno`.
    init(_ call: String) {
        description = "\(call) failed: errno \(errno)"
    }
}

/// A listening TCP socket on a loopback address, with blocking helpers for the peer's side of
/// a byte-stream test.
final class TestTCPListener: @unchecked Sendable {  // Sendable: immutable after init.
    /// The listening descriptor.
    let fd: Int32
    /// The port it listens on.
    let port: Int

    /// Listens on 127.0.0.1 (or ::1) on an ephemeral port.
    /// - Parameters:
    ///   - backlog: `listen`'s backlog (0 with a few unaccepted connections fills it up).
    ///   - receiveBuffer: `SO_RCVBUF` for accepted sockets, which fixes the buffer's size
    ///     instead of letting the kernel grow it; nil keeps the default.
    ///   - listen: false to bind without listening, so that connecting is refused.
    init(ipv6: Bool = false, backlog: Int32 = 16, receiveBuffer: Int32? = nil, listen shouldListen: Bool = true) throws
    {
        let family = ipv6 ? AF_INET6 : AF_INET
        #if canImport(Glibc)
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let fd = socket(family, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestSocketError("socket") }
        if let receiveBuffer {
            var size = receiveBuffer
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var storage = sockaddr_storage()
        var length: socklen_t
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            withUnsafeBytes(of: &address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            withUnsafeBytes(of: &address) { source in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
            }
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, !shouldListen || listen(fd, backlog) == 0 else {
            let error = TestSocketError("bind/listen")
            close(fd)
            throw error
        }
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw TestSocketError("getsockname")
        }
        let port = withUnsafeBytes(of: &storage) { raw in
            // sin_port and sin6_port sit at the same offset, in network order.
            UInt16(raw[2]) << 8 | UInt16(raw[3])
        }
        self.fd = fd
        self.port = Int(port)
    }

    deinit {
        close(fd)
    }

    /// The address of this listener for a byte stream.
    func address(host: String = "127.0.0.1") -> WebSocketAddress {
        WebSocketAddress(host: host, port: port, isSecure: false)
    }

    /// Waits for a connection (up to `timeout` seconds) and accepts it.
    func accept(timeout: Int32 = 10_000) throws -> TestPeer {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeout) == 1 else { throw TestSocketError("poll (accept)") }
        let accepted = acceptWithoutAddress(fd)
        guard accepted >= 0 else { throw TestSocketError("accept") }
        return TestPeer(fd: accepted)
    }
}

/// `accept` without the peer's address.
private func acceptWithoutAddress(_ fd: Int32) -> Int32 {
    accept(fd, nil, nil)
}

/// The server's end of a test connection: blocking reads and writes unless made non-blocking.
final class TestPeer: @unchecked Sendable {  // Sendable: used by one thread at a time (the test hands it over).
    /// The accepted descriptor.
    let fd: Int32
    /// Whether `close()` ran.
    private var isClosed = false

    /// Wraps an accepted descriptor.
    init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close()
    }

    /// Closes the descriptor (once).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }

    /// Writes every byte (blocking).
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                sendNoSignal(fd, raw.baseAddress.map { $0 + offset }, bytes.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw TestSocketError("send")
            }
            offset += written
        }
    }

    /// Reads once (blocking): the bytes, or an empty array at the end of the stream.
    func readSome(maximum: Int = 65536) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, maximum, 0) }
            if count >= 0 { return Array(buffer[0..<count]) }
            if errno == EINTR { continue }
            throw TestSocketError("recv")
        }
    }

    /// Reads exactly `count` bytes (blocking); fewer if the stream ends first.
    func read(count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while bytes.count < count {
            let some = try readSome(maximum: min(65536, count - bytes.count))
            if some.isEmpty { break }
            bytes += some
        }
        return bytes
    }

    /// Echoes what arrives until the peer closes its side, then closes.
    func echoUntilEnd() {
        while let some = try? readSome(), !some.isEmpty {
            guard (try? write(some)) != nil else { break }
        }
        close()
    }

    /// Writes `chunk` again and again without blocking until the kernel takes no more.
    /// - Returns: how many bytes it took, or nil if it took more than `limit`.
    func writeUntilWouldBlock(chunk: [UInt8], limit: Int) -> Int? {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(fd, F_SETFL, flags) }
        var total = 0
        while total <= limit {
            let written = chunk.withUnsafeBytes { sendNoSignal(fd, $0.baseAddress, chunk.count) }
            if written > 0 {
                total += written
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return total
            } else if errno != EINTR {
                return nil
            }
        }
        return nil
    }
}

/// `send` that never raises `SIGPIPE`.
private func sendNoSignal(_ fd: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        send(fd, pointer, count, Int32(MSG_NOSIGNAL))
    #else
        send(fd, pointer, count, 0)
    #endif
}

/// How many descriptors the process has open: the entries of /proc/self/fd (Linux) or
/// /dev/fd (Darwin). Listing the directory opens one more, the same each time.
func openDescriptorCount() -> Int? {
    let directory = FileManager.default.fileExists(atPath: "/proc/self/fd") ? "/proc/self/fd" : "/dev/fd"
    return (try? FileManager.default.contentsOfDirectory(atPath: directory))?.count
}

/// A value several threads write and a test reads.
final class TestBox<Value: Sendable>: @unchecked Sendable {  // Sendable: every access holds `lock`.
    /// Guards `storedValue`.
    private let lock = NSLock()
    /// The value.
    private var storedValue: Value

    /// A box holding `value`.
    init(_ value: Value) {
        storedValue = value
    }

    /// The current value.
    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return storedValue
    }

    /// Changes the value under the lock.
    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&storedValue)
    }
}

extension XCTestCase {
    /// Connects with `connector`, failing the test on a failure.
    func connectStream(
        _ connector: any WebSocketByteStreamConnector, to address: WebSocketAddress,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> any WebSocketByteStream {
        let result = connectResult(connector, to: address)
        switch result {
        case .success(let stream): return stream
        case .failure(let error):
            XCTFail("connect failed: \(error)", file: file, line: line)
            throw error
        case nil:
            XCTFail("connect did not complete", file: file, line: line)
            throw URLError(.timedOut)
        }
    }

    /// What connecting with `connector` gave, or nil if it did not complete within 20 s.
    func connectResult(_ connector: any WebSocketByteStreamConnector, to address: WebSocketAddress)
        -> Result<any WebSocketByteStream, URLError>?
    {
        let done = DispatchSemaphore(value: 0)
        let box = TestBox<Result<any WebSocketByteStream, URLError>?>(nil)
        let subscription = connector.connect(to: address) { result in
            box.update { $0 = result }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 20)
        _ = subscription
        return box.value
    }
}

// Free functions, not test-case methods: tests call them from threads of their own too.

/// One `receive`, waited for (up to `seconds`; nil if it did not complete).
func receiveOnce(
    _ stream: any WebSocketByteStream, maximumLength: Int = 65536, within seconds: Double = 20
) -> WebSocketByteStreamRead? {
    let done = DispatchSemaphore(value: 0)
    let box = TestBox<WebSocketByteStreamRead?>(nil)
    stream.receive(maximumLength: maximumLength) { read in
        box.update { $0 = read }
        done.signal()
    }
    _ = done.wait(timeout: .now() + seconds)
    return box.value
}

/// Receives until `count` bytes arrived, the stream ended or failed, or one receive
/// waited `seconds` (then `last` is nil and `bytes` short).
func receiveBytes(
    _ stream: any WebSocketByteStream, count: Int, within seconds: Double = 20
) -> (bytes: Data, last: WebSocketByteStreamRead?) {
    var bytes = Data()
    while bytes.count < count {
        let read = receiveOnce(stream, maximumLength: count - bytes.count, within: seconds)
        guard case .bytes(let some) = read else { return (bytes, read) }
        bytes += some
    }
    return (bytes, nil)
}

/// One `send`, waited for (up to 60 s): nil on success.
func sendAll(_ stream: any WebSocketByteStream, _ bytes: Data) -> URLError? {
    let done = DispatchSemaphore(value: 0)
    let box = TestBox<URLError?>(URLError(.timedOut))
    stream.send(bytes) { error in
        box.update { $0 = error }
        done.signal()
    }
    _ = done.wait(timeout: .now() + 60)
    return box.value
}

/// Deterministic bytes for transfers (a linear congruential sequence).
func testPattern(count: Int, seed: UInt32 = 1) -> Data {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state = state &* 1_664_525 &+ 1_013_904_223
        bytes[index] = UInt8(truncatingIfNeeded: state >> 24)
    }
    return Data(bytes)
}
