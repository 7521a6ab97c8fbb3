import Rx

/// An execution that its manager's `cancelAll()` can end.
protocol ManagedExecution: AnyObject, Sendable {
    /// What the execution is listed under (its own identity), which its attempts settle it
    /// by (see `ExecutionRegistry.settle(_:)`).
    var registryKey: ObjectIdentifier { get }

    /// Ends the execution with `LeashError.cancelled` (delivered to its subscriber, unlike a
    /// dispose) and cancels what is in flight; does nothing if it already ended.
    func cancelFromManager()
}

/// The executions of one manager that are in flight, for `Manager.cancelAll()`.
///
/// Each execution adds its one per-execution object when it starts and removes it when
/// it ends: one lock-protected insert and one remove, no allocation (a dictionary keeps
/// its capacity as entries come and go, and the object is the execution's own).
///
/// **An execution is settled while its final value is delivered**, as its deadline is
/// (see `ExecutionDeadline`): `cancelAll()` no longer reaches it, so a subscriber never
/// sees the final value followed by `LeashError.cancelled` (a callback called twice),
/// even if `cancelAll()` runs while that value is being handed on (or from inside the
/// subscriber's `onNext`). Settling and `cancelAll()` race under one lock: either the value
/// is delivered and the execution completes, or the cancel ends it and the value is never
/// delivered.
package final class ExecutionRegistry: Sendable {
    private struct Entries {
        /// What `cancelAll()` ends.
        var inFlight: [ObjectIdentifier: any ManagedExecution] = [:]
        /// Delivering their final value: out of `cancelAll()`'s reach unless a retry follows.
        var settled: [ObjectIdentifier: any ManagedExecution] = [:]
    }

    private let entries = LockedState(Entries())

    /// Adds `execution`, in flight from now until `remove(_:)` (or a `cancelAll()`).
    func add(_ execution: any ManagedExecution) {
        entries.withLock { $0.inFlight[execution.registryKey] = execution }
    }

    /// Removes `execution`, which ended; does nothing if it is not here.
    func remove(_ execution: any ManagedExecution) {
        let key = execution.registryKey
        // Taken out under the lock, released after it: the last reference may go here,
        // and freeing an execution may run the app's deinits.
        let removed = entries.withLock { entries in
            entries.inFlight.removeValue(forKey: key) ?? entries.settled.removeValue(forKey: key)
        }
        withExtendedLifetime(removed) {}
    }

    /// The execution listed under `key` is about to deliver its final value: `cancelAll()`
    /// no longer ends it. Returns false if it is not in flight (a `cancelAll()` took it,
    /// and its cancel ends the execution, or it ended): then the value must not be
    /// delivered.
    func settle(_ key: ObjectIdentifier) -> Bool {
        entries.withLock { entries in
            guard let execution = entries.inFlight.removeValue(forKey: key) else {
                return entries.settled[key] != nil
            }
            entries.settled[key] = execution
            return true
        }
    }

    /// A retry follows the settled execution listed under `key`: `cancelAll()` reaches it
    /// again. Does nothing if it was not settled (or ended meanwhile).
    func unsettle(_ key: ObjectIdentifier) {
        entries.withLock { entries in
            guard let execution = entries.settled.removeValue(forKey: key) else { return }
            entries.inFlight[key] = execution
        }
    }

    /// The number of executions in flight (settled ones included).
    package var count: Int { entries.withLock { $0.inFlight.count + $0.settled.count } }

    /// Cancels every execution in flight now, except those delivering their final value.
    /// Executions added while this runs are not cancelled: they started after it.
    func cancelAll() {
        let cancelled = entries.withLock { entries -> [any ManagedExecution] in
            defer { entries.inFlight.removeAll(keepingCapacity: true) }
            return Array(entries.inFlight.values)
        }
        for execution in cancelled { execution.cancelFromManager() }
    }
}
