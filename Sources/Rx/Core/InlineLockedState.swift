#if canImport(Synchronization) && !canImport(Darwin) && !LEASH_APPLE_BRANCHES
    public import Synchronization

    /// A value guarded by a mutex that lives inside its owner, for the objects made on every
    /// request (an execution, its attempt): no allocation of its own, where a `LockedState`
    /// costs one. Not copyable: it is its owner's, stored as a `let`. Same rules as
    /// `LockedState`: decide under the lock, act after it.
    ///
    /// On Linux it is `Synchronization.Mutex`; on Apple platforms, where `Mutex` needs
    /// macOS 15 / iOS 18, above the deployment targets, it falls back to a `LockedState`
    /// (one allocation, as before). A Linux build with `-DLEASH_APPLE_BRANCHES` takes the
    /// fallback too, so that CI runs it.
    @usableFromInline
    package struct InlineLockedState<State>: ~Copyable, @unchecked Sendable {
        // Sendable: every access goes through the mutex.
        @usableFromInline let mutex: Mutex<State>

        @inlinable package init(_ initialState: sending State) { mutex = Mutex(initialState) }

        /// Runs `body` with exclusive access to the state.
        @inlinable
        package func withLock<Result: Sendable>(_ body: (inout State) throws -> Result) rethrows -> Result {
            try mutex.withLock { state in try body(&state) }
        }
    }
#else
    /// A value guarded by a mutex for the objects made on every request; on this platform a
    /// `LockedState` (see the Linux declaration for why the two differ).
    @usableFromInline
    package struct InlineLockedState<State>: ~Copyable, Sendable {
        @usableFromInline let state: LockedState<State>

        @inlinable package init(_ initialState: State) { state = LockedState(initialState) }

        /// Runs `body` with exclusive access to the state.
        @inlinable
        package func withLock<Result: Sendable>(_ body: (inout State) throws -> Result) rethrows -> Result {
            try state.withLock(body)
        }
    }
#endif
