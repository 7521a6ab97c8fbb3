#if canImport(Synchronization) && !canImport(Darwin) && !LEASH_APPLE_BRANCHES
    public import Synchronization

    /// A lock-free integer for hot-path flags (disposed, stopped) on platforms where
    /// `Synchronization.Atomic` needs no availability check (Linux, Windows, Android).
    @usableFromInline
    package struct AtomicInt: ~Copyable, Sendable {
        @usableFromInline let value: Atomic<Int>

        @inlinable package init(_ initial: Int) { value = Atomic(initial) }

        @inlinable package func load() -> Int { value.load(ordering: .acquiring) }

        @inlinable package func store(_ newValue: Int) { value.store(newValue, ordering: .releasing) }

        /// Sets the bits of `mask` and returns the value before.
        @inlinable package func fetchOr(_ mask: Int) -> Int {
            value.bitwiseOr(mask, ordering: .acquiringAndReleasing).oldValue
        }

        /// Adds `delta` and returns the new value.
        @inlinable package func add(_ delta: Int) -> Int {
            value.wrappingAdd(delta, ordering: .acquiringAndReleasing).newValue
        }

        /// Replaces `expected` with `desired`; returns whether it did.
        @inlinable package func compareExchange(expected: Int, desired: Int) -> Bool {
            value.compareExchange(expected: expected, desired: desired, ordering: .acquiringAndReleasing)
                .exchanged
        }

        /// Stores `newValue` and returns the value before.
        @inlinable package func exchange(_ newValue: Int) -> Int {
            value.exchange(newValue, ordering: .acquiringAndReleasing)
        }
    }
#else
    /// A thread-safe integer for flags. On Apple platforms `Synchronization.Atomic`
    /// requires macOS 15 / iOS 18, above our deployment targets, so this falls back to the
    /// package's mutex. (A Linux build with `-DLEASH_APPLE_BRANCHES` uses it too, so that
    /// CI runs it.)
    @usableFromInline
    package struct AtomicInt: ~Copyable, Sendable {
        @usableFromInline let state: LockedState<Int>

        @inlinable package init(_ initial: Int) { state = LockedState(initial) }

        @inlinable package func load() -> Int { state.withLock { $0 } }

        @inlinable package func store(_ newValue: Int) { state.withLock { $0 = newValue } }

        @inlinable package func fetchOr(_ mask: Int) -> Int {
            state.withLock { value in
                let old = value
                value |= mask
                return old
            }
        }

        @inlinable package func add(_ delta: Int) -> Int {
            state.withLock { value in
                value &+= delta
                return value
            }
        }

        @inlinable package func compareExchange(expected: Int, desired: Int) -> Bool {
            state.withLock { value in
                guard value == expected else { return false }
                value = desired
                return true
            }
        }

        @inlinable package func exchange(_ newValue: Int) -> Int {
            state.withLock { value in
                let old = value
                value = newValue
                return old
            }
        }
    }
#endif
