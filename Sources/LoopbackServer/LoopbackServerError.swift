#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a `LoopbackServer` could not be created: the failing socket call and its `errno`.
package enum LoopbackServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `socket(2)` failed (for example `EMFILE`: too many open files).
    case socketCreationFailed(errno: Int32)
    /// `setsockopt(2)` or `fcntl(2)` failed for the named option.
    case socketOptionFailed(option: String, errno: Int32)
    /// `bind(2)` to 127.0.0.1 on `port` failed (for example `EADDRINUSE`).
    case bindFailed(port: UInt16, errno: Int32)
    /// `listen(2)` failed.
    case listenFailed(errno: Int32)
    /// `getsockname(2)` failed, so the bound port is unknown.
    case addressUnavailable(errno: Int32)
    /// `pipe(2)`, used to wake the accept loop on `stop()`, failed.
    case wakePipeFailed(errno: Int32)
    /// `connect(2)` to the server behind a `FaultProxy` failed (for example `ECONNREFUSED`).
    case connectFailed(errno: Int32)

    /// The failing call, its `errno` and the system's message for it.
    package var description: String {
        switch self {
        case .socketCreationFailed(let code):
            return "socket() failed: \(Self.message(code))"
        case .socketOptionFailed(let option, let code):
            return "setting \(option) failed: \(Self.message(code))"
        case .bindFailed(let port, let code):
            return "bind(127.0.0.1:\(port)) failed: \(Self.message(code))"
        case .listenFailed(let code):
            return "listen() failed: \(Self.message(code))"
        case .addressUnavailable(let code):
            return "getsockname() failed: \(Self.message(code))"
        case .wakePipeFailed(let code):
            return "pipe() failed: \(Self.message(code))"
        case .connectFailed(let code):
            return "connect() failed: \(Self.message(code))"
        }
    }

    private static func message(_ code: Int32) -> String {
        "errno \(code) (\(String(cString: strerror(code))))"
    }
}
