/// Counts the live resources (observables, subscriptions, sinks, subjects, scheduled items)
/// of `Rx`.
///
/// Every observable and every per-subscription object increments the count when it is
/// created and decrements it when it is freed, as in RxSwift, so a test can check that a
/// finished or disposed pipeline released everything it held (take the count after
/// creating the observables the test keeps to its end):
///
/// ```swift
/// let before = Resources.total
/// _ = Observable.of(1, 2, 3).map { $0 * 2 }.subscribe()
/// XCTAssertEqual(Resources.total, before)
/// ```
///
/// Counting costs an atomic operation per object, so it happens in debug builds only
/// (`TRACE_RESOURCES`); in release builds `total` stays 0.
public enum Resources {
    /// The number of live `Rx` resources.
    public static var total: Int32 { Int32(truncatingIfNeeded: resourceCount.load()) }

    /// The number of live observables made by `observe(on:)` with a
    /// `SerialDispatchQueueScheduler` (`MainScheduler` included), as RxSwift counts them for
    /// its tests: one per `observe(on:)` call, from the call until the observable is freed,
    /// however many times it is subscribed. 0 in release builds, which do not count.
    public static var numberOfSerialDispatchQueueObservables: Int32 {
        Int32(truncatingIfNeeded: serialDispatchQueueObservableCount.load())
    }

    /// Counts a new resource. Custom operators may use this to take part in leak checks.
    ///
    /// - Returns: The new count, as RxSwift does (0 in release builds, which do not count).
    @inlinable
    @discardableResult
    public static func incrementTotal() -> Int32 {
        #if TRACE_RESOURCES
            return Int32(truncatingIfNeeded: resourceCount.add(1))
        #else
            return 0
        #endif
    }

    /// Counts a freed resource.
    ///
    /// - Returns: The new count (0 in release builds, which do not count).
    @inlinable
    @discardableResult
    public static func decrementTotal() -> Int32 {
        #if TRACE_RESOURCES
            return Int32(truncatingIfNeeded: resourceCount.add(-1))
        #else
            return 0
        #endif
    }
}

@usableFromInline let resourceCount = AtomicInt(0)

let serialDispatchQueueObservableCount = AtomicInt(0)

/// Held by an observable of `observe(on:)` on a serial dispatch queue scheduler: it counts
/// in `Resources.numberOfSerialDispatchQueueObservables` for as long as the observable lives.
final class SerialDispatchQueueObservableCounter: Sendable {
    /// A counter when `scheduler` is a `SerialDispatchQueueScheduler` and resources are
    /// traced (debug builds); nil otherwise.
    static func counting(for scheduler: ImmediateSchedulerType) -> SerialDispatchQueueObservableCounter? {
        #if TRACE_RESOURCES
            return scheduler is SerialDispatchQueueScheduler ? SerialDispatchQueueObservableCounter() : nil
        #else
            return nil
        #endif
    }

    private init() {
        _ = serialDispatchQueueObservableCount.add(1)
    }

    deinit {
        _ = serialDispatchQueueObservableCount.add(-1)
    }
}

/// Base class of every per-subscription object: it keeps `Resources.total` honest.
///
/// `@unchecked Sendable` because subclasses are handed between threads by design: their
/// mutable state is either confined by the Rx grammar (an observer is never called
/// concurrently) or guarded by `LockedState` / `AtomicInt`. Each subclass that is not
/// obviously one of those says which in its own comment.
@usableFromInline
class RxResource: @unchecked Sendable {
    @inlinable
    init() {
        Resources.incrementTotal()
    }

    @inlinable
    deinit {
        Resources.decrementTotal()
    }
}
