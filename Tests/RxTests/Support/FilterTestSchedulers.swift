import Dispatch
import Foundation
import Rx
import XCTest

/// A `SchedulerType` running actions on a `DispatchQueue`, for the filtering operators'
/// real-thread tests (timers then really race upstream events).
final class FilterDispatchQueueScheduler: SchedulerType {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    var now: RxTime { Date() }

    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        scheduleRelative(state, dueTime: .nanoseconds(0), action: action)
    }

    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let box = FilterUncheckedBox(state)
        let disposable = SingleAssignmentDisposable()
        queue.asyncAfter(deadline: .now() + dueTime) {
            guard !disposable.isDisposed else { return }
            disposable.setDisposable(action(box.value))
        }
        return disposable
    }
}

/// Carries a scheduler's state to the queue that runs the action; the state is handed over
/// once, as `ImmediateSchedulerType` promises.
struct FilterUncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Records events from any thread and counts deliveries that overlapped another one: the
/// Rx contract says there must be none.
final class FilterEventRecorder<Element>: ObserverType, @unchecked Sendable {
    // Sendable: all mutable state is behind `lock`.
    private let lock = NSCondition()
    private var isDelivering = false
    private var recorded: [Event<Element>] = []
    private var overlaps = 0
    private var hasTerminated = false
    private var nextCount = 0
    /// Fulfilled by the terminal event.
    let terminated = XCTestExpectation(description: "terminal event")
    /// Fulfilled by the first element.
    let firstElement = XCTestExpectation(description: "first element")

    func on(_ event: Event<Element>) {
        let isFirst = lock.withLock { () -> Bool in
            if isDelivering { overlaps += 1 }
            isDelivering = true
            recorded.append(event)
            if event.isStopEvent { hasTerminated = true } else { nextCount += 1 }
            lock.broadcast()
            return recorded.count == 1
        }
        if isFirst, case .next = event { firstElement.fulfill() }
        if event.isStopEvent { terminated.fulfill() }
        lock.withLock { isDelivering = false }
    }

    var events: [Event<Element>] { lock.withLock { recorded } }

    /// Blocks until an element satisfying `predicate` arrived (or `timeout` passed);
    /// returns whether it did.
    @discardableResult
    func waitForElement(timeout: TimeInterval = 5, where predicate: (Element) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        return lock.withLock {
            while !recorded.contains(where: { $0.element.map(predicate) ?? false }) {
                if !lock.wait(until: deadline) { return false }
            }
            return true
        }
    }

    /// The number of elements so far.
    var elementCount: Int { lock.withLock { nextCount } }

    /// Whether a terminal event arrived.
    var isTerminated: Bool { lock.withLock { hasTerminated } }

    var elements: [Element] { events.compactMap(\.element) }

    var overlappingDeliveries: Int { lock.withLock { overlaps } }
}

/// Counts calls from `@Sendable` closures (predicates, selectors) in tests.
final class FilterCallCounter: @unchecked Sendable {
    // Sendable: a lock guards the count.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }

    var value: Int { lock.withLock { count } }
}

/// Holds a subscription so that its own handlers can dispose it.
final class FilterDisposableBox {
    var disposable: Disposable?
}

/// A thread-safe list of strings, for checking the order of side effects.
final class FilterOrderLog: @unchecked Sendable {
    // Sendable: a lock guards the entries.
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ entry: String) { lock.withLock { storage.append(entry) } }

    var entries: [String] { lock.withLock { storage } }
}
