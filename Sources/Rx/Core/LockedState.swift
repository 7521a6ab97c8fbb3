#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Storage for `LockedState`: the state and its mutex in one allocation.
@usableFromInline
final class LockedStateStorage<State>: ManagedBuffer<State, pthread_mutex_t> {
    // ManagedBuffer destroys the header (the state) itself; only the mutex needs care.
    deinit {
        _ = withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
        }
    }
}

/// The one lock type of the package: a value guarded by a mutex, used as `withLock { }`.
///
/// Decide under the lock, act after it: no user code and no downstream delivery may run
/// inside `withLock`. The mutex is not recursive on purpose; re-entrancy is handled by
/// the callers' state machines, never by the lock.
///
/// `package`: Leash's own per-execution state uses it too (one allocation, where an
/// `NSLock` costs two and an Objective-C-style object on Linux).
@usableFromInline
package struct LockedState<State>: @unchecked Sendable {  // Sendable: every access goes through the mutex.
    @usableFromInline let storage: ManagedBuffer<State, pthread_mutex_t>

    @inlinable
    package init(_ initialState: State) {
        storage = LockedStateStorage<State>.create(minimumCapacity: 1) { _ in initialState }
        storage.withUnsafeMutablePointerToElements { mutex in
            _ = pthread_mutex_init(mutex, nil)
        }
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { state, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&state.pointee)
        }
    }
}
