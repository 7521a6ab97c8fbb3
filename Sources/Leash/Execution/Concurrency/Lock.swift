import Rx

/// The mutex of Leash's per-execution objects: `Rx`'s lock, shared within the package.
///
/// One allocation with the mutex inside, where `NSLock` costs two on Linux; executions
/// create several of these, so it shows in the overhead per request.
struct Lock: Sendable {
    // A one-byte state, not `Void`: with an empty state the mutex would sit at the state's
    // own address, and ThreadSanitizer reads the (empty) state access as a racing one.
    private let state = LockedState<UInt8>(0)

    /// Runs `body` holding the lock.
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try state.withLock { _ in try body() }
    }
}
