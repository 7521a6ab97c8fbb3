import Rx

/// An execution that its manager's `cancelAll()` can end.
protocol ManagedExecution: AnyObject, Sendable {
    /// Ends the execution with `LeashError.cancelled` (delivered to its subscriber, unlike a
    /// dispose) and cancels what is in flight; does nothing if it already ended.
    func cancelFromManager()
}

/// The executions of one manager that are in flight, for `Manager.cancelAll()`.
///
/// Each execution adds its one per-execution object when it starts and removes it when
/// it ends: one lock-protected insert and one remove, no allocation (a dictionary keeps
/// its capacity as entries come and go, and the object is the execution's own).
package final class ExecutionRegistry: Sendable {
    private let entries = LockedState<[ObjectIdentifier: any ManagedExecution]>([:])

    /// Adds `execution`, in flight from now until `remove(_:)` (or a `cancelAll()`).
    func add(_ execution: any ManagedExecution) {
        entries.withLock { $0[ObjectIdentifier(execution)] = execution }
    }

    /// Removes `execution`, which ended; does nothing if it is not here.
    func remove(_ execution: any ManagedExecution) {
        // Taken out under the lock, released after it: the last reference may go here,
        // and freeing an execution may run the app's deinits.
        let removed = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(execution)) }
        withExtendedLifetime(removed) {}
    }

    /// The number of executions in flight.
    package var count: Int { entries.withLock { $0.count } }

    /// Cancels every execution in flight now. Executions added while this runs are not
    /// cancelled: they started after it.
    func cancelAll() {
        let cancelled = entries.withLock { entries -> [any ManagedExecution] in
            defer { entries.removeAll(keepingCapacity: true) }
            return Array(entries.values)
        }
        for execution in cancelled { execution.cancelFromManager() }
    }
}
