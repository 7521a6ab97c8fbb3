import Foundation

/// A gate route handlers wait at (each on its own connection's thread) while a test holds
/// it closed: so that every request of a burst is made, say, before any is answered.
///
/// Waiting ends when the gate opens, or after 30 s, so that a broken test cannot hang the
/// server.
package final class HandlerGate: @unchecked Sendable {
    // @unchecked: `isClosed` is behind `condition`.
    private let condition = NSCondition()
    private var isClosed = false

    /// An open gate.
    package init() {}

    /// Closes the gate: handlers that call `waitWhileClosed()` wait from now on.
    package func close() { condition.withLock { isClosed = true } }

    /// Opens the gate and lets every waiting handler go.
    package func open() {
        condition.withLock {
            isClosed = false
            condition.broadcast()
        }
    }

    /// Waits while the gate is closed, at most 30 s.
    package func waitWhileClosed() {
        let deadline = Date(timeIntervalSinceNow: 30)
        condition.withLock {
            while isClosed && condition.wait(until: deadline) {}
        }
    }
}
