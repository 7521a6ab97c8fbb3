import Foundation

/// How important a log line is.
public enum LogLevel: Int, Comparable, Sendable, CustomStringConvertible {
    /// Details for following what happens (each request and its outcome).
    case debug
    /// Something worth noticing that is not a failure (a retry, a token refresh).
    case info
    /// Something went wrong (an execution failed).
    case error

    /// Orders levels from the least to the most important.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `"debug"`, `"info"` or `"error"`.
    public var description: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .error: return "error"
        }
    }
}

/// Where Leash's interceptors write their lines. Adopt it to route them to your logging
/// system (os.Logger, swift-log, a file…).
///
/// Executions run on many threads at once, so `log(_:level:)` is called concurrently:
/// an implementation must be thread-safe (the `Sendable` requirement checks the obvious
/// part of that).
///
/// ```swift
/// struct AppLogger: Logger {
///     func log(_ message: String, level: LogLevel) {
///         NSLog("[%@] %@", level.description, message)
///     }
/// }
/// ```
public protocol Logger: Sendable {
    /// Writes one line at `level`.
    func log(_ message: String, level: LogLevel)
}

extension Logger {
    /// Writes `message` at the debug level.
    public func logDebug(_ message: String) {
        log(message, level: .debug)
    }

    /// Writes `message` at the info level.
    public func logInfo(_ message: String) {
        log(message, level: .info)
    }

    /// Writes `message` at the error level.
    public func logError(_ message: String) {
        log(message, level: .error)
    }

    /// Writes `error`'s description at the error level (a `LeashError` says what went
    /// wrong in a sentence).
    public func logError(_ error: Swift.Error) {
        log("\(error)", level: .error)
    }
}
