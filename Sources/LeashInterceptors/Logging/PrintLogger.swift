import Foundation

/// The default `Logger`: prints lines at or above `minimumLevel` to standard output,
/// error lines prefixed with `"[error] "`.
///
/// `print` writes each line whole, so concurrent executions never interleave
/// characters.
public struct PrintLogger: Logger {
    /// The least important level printed.
    public let minimumLevel: LogLevel

    /// A logger that prints lines at `minimumLevel` and above.
    public init(minimumLevel: LogLevel = .debug) {
        self.minimumLevel = minimumLevel
    }

    /// Prints `message` if `level` is at least `minimumLevel`.
    public func log(_ message: String, level: LogLevel) {
        guard level >= minimumLevel else { return }
        print(level == .error ? "[error] \(message)" : message)
    }
}
