#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The BSD socket calls the byte streams make, with `EINTR` retried and the platforms'
/// differences (socket type constants, `SIGPIPE` suppression) in one place.
enum ByteStreamSocket {
    /// What one non-blocking read or write did.
    enum Transfer: Equatable {
        /// This many bytes moved (at least one).
        case moved(Int)
        /// Nothing can move until the descriptor is ready again.
        case wouldBlock
        /// The peer closed its side (reads only).
        case end
        /// The call failed with this `errno`.
        case failed(Int32)
    }

    /// A new non-blocking, close-on-exec TCP socket of `family`, with `TCP_NODELAY` (a
    /// WebSocket frame should leave at once, not wait for the previous one's ACK) and, where
    /// it exists, `SO_NOSIGPIPE`.
    /// - Returns: the descriptor, or the `errno` that stopped it.
    static func makeTCP(family: Int32) -> Result<Int32, SocketErrno> {
        // Close-on-exec at creation where the platform can, so that a process spawned by
        // another thread meanwhile never inherits the socket.
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        #elseif canImport(Musl)
            let type = SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK
        #else
            let type = SOCK_STREAM
        #endif
        let fd = socket(family, type, Int32(IPPROTO_TCP))
        guard fd >= 0 else { return .failure(SocketErrno(errno)) }
        let descriptorFlags = fcntl(fd, F_GETFD)
        let statusFlags = fcntl(fd, F_GETFL)
        guard descriptorFlags >= 0, statusFlags >= 0, fcntl(fd, F_SETFD, descriptorFlags | FD_CLOEXEC) == 0,
            fcntl(fd, F_SETFL, statusFlags | O_NONBLOCK) == 0
        else {
            let error = SocketErrno(errno)
            close(fd)
            return .failure(error)
        }
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
        #if canImport(Darwin)
            // Darwin has no MSG_NOSIGNAL: the socket itself must not raise SIGPIPE.
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, size)
        #endif
        return .success(fd)
    }

    /// Starts connecting `fd` to `address`.
    /// - Returns: nil once connected, `EINPROGRESS` while the connection is being made (wait
    ///   for writability, then read `pendingError`), or another `errno` when it failed.
    static func startConnect(_ fd: Int32, to address: ResolvedSocketAddress) -> Int32? {
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                connect(fd, socketAddress, address.length)
            }
        }
        if result == 0 { return nil }
        let error = errno
        // An interrupted connect goes on in the background, exactly like a non-blocking one.
        return error == EINTR ? EINPROGRESS : error
    }

    /// The outcome of a non-blocking connect once the socket is writable: 0 when connected.
    static func pendingError(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }

    /// Reads what is there, without waiting.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Transfer {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .moved(count) }
            if count == 0 { return .end }
            let error = errno
            if error == EINTR { continue }
            return error == EAGAIN || error == EWOULDBLOCK ? .wouldBlock : .failed(error)
        }
    }

    /// Writes what the kernel takes now, without waiting; never raises `SIGPIPE`.
    static func write(_ fd: Int32, from bytes: UnsafeRawBufferPointer) -> Transfer {
        guard bytes.count > 0 else { return .moved(0) }
        // Linux has no SO_NOSIGPIPE: each send says it instead.
        #if canImport(Glibc)
            let flags = Int32(MSG_NOSIGNAL)
        #elseif canImport(Musl)
            let flags = MSG_NOSIGNAL
        #else
            let flags: Int32 = 0
        #endif
        while true {
            let count = send(fd, bytes.baseAddress, bytes.count, flags)
            if count >= 0 { return .moved(count) }
            let error = errno
            if error == EINTR { continue }
            return error == EAGAIN || error == EWOULDBLOCK ? .wouldBlock : .failed(error)
        }
    }

    /// Whether `fd` has bytes to read, or the peer closed or reset the connection, right now.
    static func hasInputOrHangup(_ fd: Int32) -> Bool {
        isReadyNow(fd, for: Int16(POLLIN))
    }

    /// Whether `fd` can be written to, or has failed or hung up, right now: how a connecting
    /// socket's end is told from a report that came early.
    static func isWritableOrFailed(_ fd: Int32) -> Bool {
        isReadyNow(fd, for: Int16(POLLOUT))
    }

    /// Whether `fd` is ready for `events`, or has failed or hung up (a `poll` that does not
    /// wait; a failure of `poll` itself counts as ready, so that the caller's call finds it).
    private static func isReadyNow(_ fd: Int32, for events: Int16) -> Bool {
        var watched = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let result = poll(&watched, 1, 0)
            if result > 0 { return true }
            if result == 0 { return false }
            if errno != EINTR { return true }
        }
    }

    /// Closes a descriptor. Not retried on `EINTR`: on Linux the descriptor is gone even then,
    /// and a retry could close a descriptor another thread has just been given.
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #elseif canImport(Musl)
            _ = Musl.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }
}

/// An `errno` value, as a type of its own so that results can carry it.
struct SocketErrno: Error, Equatable {
    /// The `errno` value.
    var code: Int32

    /// Wraps `code`.
    init(_ code: Int32) {
        self.code = code
    }
}
