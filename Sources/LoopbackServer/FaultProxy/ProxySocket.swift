#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The socket calls the fault proxy needs beyond the server's: connecting to the server
/// behind it, resetting a connection, and waiting on several descriptors at once.
extension Socket {
    /// Connects a blocking TCP socket to `host` (an IPv4 address) and `port`.
    /// - Returns: the descriptor, or the `errno` of the failure.
    static func connect(host: String, port: UInt16) -> Result<Int32, LoopbackServerError> {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            return .failure(.addressUnavailable(errno: EINVAL))
        }
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return .failure(.socketCreationFailed(errno: errno)) }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                while true {
                    #if canImport(Glibc)
                        let result = Glibc.connect(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                    #else
                        let result = Darwin.connect(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                    #endif
                    if result == 0 || errno != EINTR { return result }
                }
            }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            return .failure(.connectFailed(errno: error))
        }
        configureAccepted(fd)
        return .success(fd)
    }

    /// Closes `fd` so that the peer sees a reset (RST) rather than an orderly close.
    static func resetAndClose(_ fd: Int32) {
        var linger = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        close(fd)
    }

    /// Waits until one of `fds` is readable (data, end of stream or error) or `timeout`
    /// milliseconds pass (`-1`: no limit); a negative descriptor is skipped.
    /// - Returns: which of `fds` are readable (none when the time ran out).
    static func waitReadable(_ fds: [Int32], timeout: Int32) -> [Bool] {
        var descriptors = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let result = poll(&descriptors, nfds_t(descriptors.count), timeout)
        guard result > 0 else { return Array(repeating: false, count: fds.count) }
        return descriptors.map { $0.fd >= 0 && $0.revents != 0 }
    }
}
