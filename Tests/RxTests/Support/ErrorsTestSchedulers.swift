import Dispatch
import Foundation
import Rx

/// A scheduler on a `DispatchQueue`, serial or concurrent, for the real-thread tests of the
/// error-handling and utility operators (the package's dispatch schedulers live elsewhere).
///
/// `isCurrent` tells whether the calling code runs on the queue.
final class ErrorsQueueScheduler: SchedulerType, @unchecked Sendable {
    // Sendable: immutable; DispatchQueue and the specific key are thread-safe.
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()

    init(label: String, concurrent: Bool = false) {
        queue = DispatchQueue(label: label, attributes: concurrent ? [.concurrent] : [])
        queue.setSpecific(key: key, value: 1)
    }

    /// Whether the caller runs on this scheduler's queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == 1 }

    var now: RxTime { Date() }

    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let slot = SingleAssignmentDisposable()
        let box = ErrorsUncheckedBox(state)
        let work: @Sendable () -> Void = {
            guard !slot.isDisposed else { return }
            slot.setDisposable(action(box.value))
        }
        if case .nanoseconds(0) = dueTime {
            queue.async(execute: work)
        } else {
            queue.asyncAfter(deadline: .now() + dueTime, execute: work)
        }
        return slot
    }
}

/// Hands a value to a `@Sendable` closure that the test knows uses it safely.
struct ErrorsUncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A value shared between a test and the closures it gives to operators, behind a lock.
final class ErrorsLocked<Value>: @unchecked Sendable {
    // Sendable: every access takes the lock.
    private let lock = NSLock()
    private var storage: Value

    init(_ value: Value) { storage = value }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    /// Changes the value; returns what `body` returns.
    @discardableResult
    func mutate<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&storage)
    }
}

extension ErrorsLocked where Value == [String] {
    /// Appends `entry` to the log.
    func append(_ entry: String) { mutate { $0.append(entry) } }
}

extension ErrorsLocked where Value == Int {
    /// Adds one; returns the new value.
    @discardableResult
    func increment() -> Int {
        mutate { value in
            value += 1
            return value
        }
    }
}

/// Holds a subscription so that a handler can dispose it.
final class ErrorsDisposableBox: @unchecked Sendable {
    // Sendable: used from the thread that drives the test.
    var disposable: Disposable?
}
