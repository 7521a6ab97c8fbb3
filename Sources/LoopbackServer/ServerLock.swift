import Foundation

/// A value guarded by a condition variable's mutex: `withLock` for reads and writes that
/// nobody waits for, `update` for changes that waiters must see, `wait` to block until a
/// predicate over the value holds.
///
/// Decide under the lock, act after it: no handler, no socket I/O that can block and no
/// caller-supplied predicate runs while the lock is held.
final class ServerLock<State: Sendable>: @unchecked Sendable {  // Sendable: every access goes through `condition`.
    private let condition = NSCondition()
    private var state: State

    init(_ initialState: State) {
        state = initialState
    }

    /// Runs `body` with exclusive access to the state; waiters are not woken.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&state)
    }

    /// Runs `body` with exclusive access to the state, then wakes every waiter.
    func update<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Blocks until `isSatisfied` holds for the state or `deadline` passes (never, if nil).
    ///
    /// `isSatisfied` runs under the lock, so it must be a plain check of the state.
    /// - Returns: whether the predicate held when the wait ended.
    func wait(until deadline: Date?, for isSatisfied: (State) -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !isSatisfied(state) {
            if let deadline {
                if !condition.wait(until: deadline) {
                    return isSatisfied(state)
                }
            } else {
                condition.wait()
            }
        }
        return true
    }
}
