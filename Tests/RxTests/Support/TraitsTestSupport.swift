import Foundation
import Rx
import RxTesting

/// A value shared with `@Sendable` operator closures in tests (factories, `do` actions,
/// `create` bodies), which may not capture local variables.
///
/// Sendable: every access takes the lock.
final class TraitsBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            stored = newValue
        }
    }

    /// Changes the value under the lock; returns what `body` returns.
    @discardableResult
    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&stored)
    }
}

extension TraitsBox where Value == [String] {
    /// Appends `entry` (for recording the order of side effects).
    func log(_ entry: String) {
        update { $0.append(entry) }
    }
}

/// A disposable that records, in virtual time, when it was created and disposed.
///
/// Sendable: the record is behind the box's lock.
final class TraitsMockDisposable: Disposable, @unchecked Sendable {
    private let scheduler: TestScheduler
    private let recorded: TraitsBox<[TestTime]>

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
        recorded = TraitsBox([scheduler.clock])
    }

    /// The creation time, then each disposal time.
    var ticks: [TestTime] { recorded.value }

    func dispose() {
        recorded.log(scheduler.clock)
    }
}

extension TraitsBox where Value == [TestTime] {
    fileprivate func log(_ time: TestTime) {
        update { $0.append(time) }
    }
}

/// A readable form of a `SingleEvent`, for comparing outcomes (errors are not Equatable).
func traitsDescribe<Element>(_ event: SingleEvent<Element>) -> String {
    switch event {
    case .success(let element): return "success(\(element))"
    case .failure(let error): return "failure(\(error))"
    }
}

/// A readable form of a `MaybeEvent`.
func traitsDescribe<Element>(_ event: MaybeEvent<Element>) -> String {
    switch event {
    case .success(let element): return "success(\(element))"
    case .error(let error): return "error(\(error))"
    case .completed: return "completed"
    }
}

/// A readable form of a `CompletableEvent`.
func traitsDescribe(_ event: CompletableEvent) -> String {
    switch event {
    case .error(let error): return "error(\(error))"
    case .completed: return "completed"
    }
}

/// Runs `body` with `Hooks.defaultErrorHandler` recording into the returned list, then
/// restores the handler.
func traitsCapturingUnhandledErrors(_ body: () -> Void) -> [String] {
    let captured = TraitsBox<[String]>([])
    let previous = Hooks.defaultErrorHandler
    Hooks.defaultErrorHandler = { _, error in captured.log("\(error)") }
    body()
    Hooks.defaultErrorHandler = previous
    return captured.value
}

/// The events of the sequence that `make` creates, run under a fresh `TestScheduler` with
/// the default times (created 100, subscribed 200, disposed 1000).
func traitsEvents<Source: ObservableConvertibleType>(_ make: @escaping () -> Source)
    -> [Recorded<Event<Source.Element>>]
{
    TestScheduler(initialClock: 0).start(make).events
}

/// A scheduler over a dispatch queue, for tests that need real threads (the core has no
/// dispatch-based scheduler of its own).
final class TraitsQueueScheduler: SchedulerType {
    let queue: DispatchQueue

    init(label: String, concurrent: Bool = false) {
        queue = DispatchQueue(label: label, attributes: concurrent ? [.concurrent] : [])
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
        let cancel = BooleanDisposable()
        let box = TraitsBox(state)
        queue.asyncAfter(deadline: .now() + dueTime) {
            if !cancel.isDisposed { _ = action(box.value) }
        }
        return cancel
    }
}
