#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch

/// Thin wrappers over the BSD socket calls the server needs, with `EINTR` retried and the
/// platform differences (socket type constants, `SIGPIPE` suppression) kept in one place.
enum Socket {
    /// What a blocking read produced.
    enum ReadResult {
        /// `count` bytes were read.
        case data(count: Int)
        /// The peer closed its side (or the socket was shut down locally).
        case closed
        /// The read failed, typically `ECONNRESET`.
        case failed(errno: Int32)
    }

    /// What waiting for a socket to become readable produced.
    enum PollResult {
        /// Data, end of stream or an error is pending: the next read will not block.
        case readable
        /// The timeout passed first.
        case timedOut
        /// `poll` itself failed.
        case failed(errno: Int32)
    }

    /// Creates a listening TCP socket on 127.0.0.1, non-blocking (the accept loop polls it).
    static func makeListener(port requestedPort: UInt16) throws(LoopbackServerError) -> (fd: Int32, port: UInt16) {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .socketCreationFailed(errno: errno) }
        do throws(LoopbackServerError) {
            setCloseOnExec(fd)
            var one: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw .socketOptionFailed(option: "SO_REUSEADDR", errno: errno)
            }
            var address = sockaddr_in()
            #if canImport(Darwin)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = requestedPort.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw .bindFailed(port: requestedPort, errno: errno) }
            guard listen(fd, SOMAXCONN) == 0 else { throw .listenFailed(errno: errno) }
            var boundAddress = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &boundAddress) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    getsockname(fd, socketAddress, &length)
                }
            }
            guard named == 0 else { throw .addressUnavailable(errno: errno) }
            guard setNonBlocking(fd, true) else { throw .socketOptionFailed(option: "O_NONBLOCK", errno: errno) }
            return (fd, UInt16(bigEndian: boundAddress.sin_port))
        } catch {
            Socket.close(fd)
            throw error
        }
    }

    /// A listener (`makeListener`) and the pipe that wakes its accept loop (`makeWakePipe`),
    /// made together: the listener is closed again if the pipe cannot be made.
    static func makeListenerAndWakePipe(port requestedPort: UInt16) throws(LoopbackServerError)
        -> (listener: Int32, port: UInt16, wakeRead: Int32, wakeWrite: Int32)
    {
        let (listener, port) = try makeListener(port: requestedPort)
        do throws(LoopbackServerError) {
            let (wakeRead, wakeWrite) = try makeWakePipe()
            return (listener, port, wakeRead, wakeWrite)
        } catch {
            close(listener)
            throw error
        }
    }

    /// Creates the pipe that wakes the accept loop; both ends close on exec.
    static func makeWakePipe() throws(LoopbackServerError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .wakePipeFailed(errno: errno) }
        setCloseOnExec(fds[0])
        setCloseOnExec(fds[1])
        return (fds[0], fds[1])
    }

    /// Prepares an accepted socket: blocking (Darwin inherits `O_NONBLOCK` from the
    /// listener), `TCP_NODELAY`, and no `SIGPIPE` on Darwin.
    static func configureAccepted(_ fd: Int32) {
        setCloseOnExec(fd)
        _ = setNonBlocking(fd, false)
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Reads what is available (blocking until something is), retrying `EINTR`.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .data(count: count) }
            if count == 0 { return .closed }
            let error = errno
            if error == EINTR { continue }
            return .failed(errno: error)
        }
    }

    /// Writes every byte, retrying partial writes and `EINTR`; never raises `SIGPIPE`.
    /// - Returns: nil on success, else the `errno` of the failed write.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard var pointer = bytes.baseAddress else { return nil }
        var remaining = bytes.count
        while remaining > 0 {
            #if canImport(Glibc)
                let written = send(fd, pointer, remaining, Int32(MSG_NOSIGNAL))
            #else
                let written = send(fd, pointer, remaining, 0)
            #endif
            if written < 0 {
                let error = errno
                if error == EINTR { continue }
                return error
            }
            pointer += written
            remaining -= written
        }
        return nil
    }

    /// Whether the peer may still read: false once it has closed its side or reset the
    /// connection (or the socket was shut down locally). Looks without consuming or
    /// blocking; bytes the peer sent and nobody read yet count as open.
    static func peerIsOpen(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        #if canImport(Glibc)
            let flags = Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)
        #else
            let flags = MSG_PEEK | MSG_DONTWAIT
        #endif
        while true {
            let count = recv(fd, &byte, 1, flags)
            if count > 0 { return true }
            if count == 0 { return false }
            let error = errno
            if error == EINTR { continue }
            return error == EAGAIN || error == EWOULDBLOCK
        }
    }

    /// Waits until `fd` is readable (data, end of stream or error), up to `timeout`
    /// milliseconds (`-1`: no limit).
    static func waitReadable(_ fd: Int32, timeout: Int32) -> PollResult {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let result = poll(&descriptor, 1, timeout)
        if result > 0 { return .readable }
        if result == 0 { return .timedOut }
        let error = errno
        // An interrupted wait ends early; callers recompute their deadline and wait again.
        return error == EINTR ? .timedOut : .failed(errno: error)
    }

    /// Shuts both directions down: a thread blocked reading `fd` wakes with end of stream
    /// and the peer sees the connection close, while the descriptor itself stays valid.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Shuts the sending direction down, so the peer sees end of stream.
    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes a descriptor.
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }

    /// Writes one byte to a pipe, ignoring failure (used to wake the accept loop).
    static func signal(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }

    /// The current `errno`.
    static var lastError: Int32 { errno }

    /// Monotonic time in nanoseconds, for deadlines that the wall clock must not move.
    static func monotonicNanoseconds() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    private static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD)
        if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    private static func setNonBlocking(_ fd: Int32, _ nonBlocking: Bool) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return false }
        let updated = nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        return updated == flags || fcntl(fd, F_SETFL, updated) == 0
    }
}

extension Socket {
    /// What one `accept` attempt produced.
    enum AcceptResult {
        /// A connection, not yet configured.
        case accepted(Int32)
        /// Nothing is pending (the listener is non-blocking).
        case wouldBlock
        /// A transient failure (`EINTR`, a connection aborted before it was accepted): try again.
        case retry
        /// Out of descriptors or another lasting failure: back off before trying again.
        case failed(errno: Int32)
    }

    /// Accepts one pending connection from a non-blocking listener.
    static func acceptOne(_ listener: Int32) -> AcceptResult {
        let fd = accept(listener, nil, nil)
        if fd >= 0 { return .accepted(fd) }
        let error = errno
        switch error {
        case EAGAIN, EWOULDBLOCK: return .wouldBlock
        case EINTR, ECONNABORTED, EPROTO: return .retry
        default: return .failed(errno: error)
        }
    }

    /// Accepts the connections of a non-blocking `listener`, each configured
    /// (`configureAccepted`) and handed to `accepted`, until the `wake` pipe has a byte or
    /// `isStopped()` says so. Out of descriptors (most likely, when `accept` fails), it
    /// waits a little, or for the wake, and tries again.
    static func acceptConnections(
        on listener: Int32, wake: Int32, isStopped: () -> Bool, accepted: (Int32) -> Void
    ) {
        var backOff: Int32 = -1
        while true {
            let woken = waitForListener(listener, wake: wake, timeout: backOff)
            backOff = -1
            if woken || isStopped() { return }
            acceptPending: while true {
                switch acceptOne(listener) {
                case .accepted(let fd):
                    configureAccepted(fd)
                    accepted(fd)
                case .wouldBlock:
                    break acceptPending
                case .retry:
                    continue
                case .failed:
                    backOff = 50
                    break acceptPending
                }
            }
        }
    }

    /// Waits until the listener has a pending connection or the wake pipe has a byte, up to
    /// `timeout` milliseconds (`-1`: no limit).
    /// - Returns: whether the wake pipe fired (the accept loop must then re-check its state).
    static func waitForListener(_ listener: Int32, wake: Int32, timeout: Int32) -> Bool {
        var descriptors = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        let result = poll(&descriptors, nfds_t(descriptors.count), timeout)
        return result > 0 && descriptors[1].revents != 0
    }
}
