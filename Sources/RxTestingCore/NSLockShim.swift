import Foundation

/// `NSLock` with a closure-based `withLock`, for RxTesting's own bookkeeping.
final class NSLockShim: @unchecked Sendable {
    // Sendable: NSLock is thread-safe.
    private let lock = NSLock()

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
