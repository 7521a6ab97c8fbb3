import Dispatch
import Foundation

/// A scheduler that runs work as soon as it can.
///
/// Actions are `@Sendable` because a scheduler may run them on another thread. The state
/// is handed to the action exactly once, on the thread the scheduler chooses.
public protocol ImmediateSchedulerType: Sendable {
    /// Schedules `action` to run with `state`.
    ///
    /// - Returns: A disposable that cancels the action if it has not run yet.
    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable
}

/// A scheduler that can also run work later, with a notion of the current time.
public protocol SchedulerType: ImmediateSchedulerType {
    /// The scheduler's current time.
    var now: RxTime { get }

    /// Schedules `action` to run with `state` after `dueTime`.
    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable

    /// Schedules `action` to run periodically, threading its state from run to run.
    func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable
}

extension SchedulerType {
    /// Periodic scheduling built from relative scheduling: each run schedules the next.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        let periodic = PeriodicRun(scheduler: self, state: state, period: period, action: action)
        return periodic.start(after: startAfter)
    }
}

/// Drives `schedulePeriodic` on schedulers that only have relative scheduling.
final class PeriodicRun<Scheduler: SchedulerType, StateType>: RxResource, @unchecked Sendable {
    // Mutable state is confined: each run is scheduled only after the previous one ends.
    private let scheduler: Scheduler
    private var state: StateType
    private let period: RxTimeInterval
    private let action: @Sendable (StateType) -> StateType
    private let serial = SerialDisposable()

    init(
        scheduler: Scheduler, state: StateType, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) {
        self.scheduler = scheduler
        self.state = state
        self.period = period
        self.action = action
    }

    func start(after dueTime: RxTimeInterval) -> Disposable {
        scheduleNext(after: dueTime)
        return serial
    }

    private func scheduleNext(after dueTime: RxTimeInterval) {
        serial.disposable = scheduler.scheduleRelative(self, dueTime: dueTime) { run in
            guard !run.serial.isDisposed else { return Disposables.create() }
            run.state = run.action(run.state)
            run.scheduleNext(after: run.period)
            return Disposables.create()
        }
    }
}

extension ImmediateSchedulerType {
    /// Schedules `action` recursively: the action receives `recurse`, which schedules the
    /// next run with a new state. Disposing the result cancels every pending run.
    public func scheduleRecursive<State>(
        _ state: State, action: @escaping @Sendable (_ state: State, _ recurse: (State) -> Void) -> Void
    ) -> Disposable {
        let recursion = RecursiveRun(scheduler: self, action: action)
        recursion.schedule(state)
        return recursion
    }
}

extension SchedulerType {
    /// Schedules `action` recursively after `dueTime`; `recurse` takes the next state and
    /// delay.
    public func scheduleRecursive<State>(
        _ state: State, dueTime: RxTimeInterval,
        action: @escaping @Sendable (_ state: State, _ recurse: (State, RxTimeInterval) -> Void) -> Void
    ) -> Disposable {
        let recursion = RecursiveTimedRun(scheduler: self, action: action)
        recursion.schedule(state, dueTime: dueTime)
        return recursion
    }
}

/// The pending runs of an immediate recursive schedule.
final class RecursiveRun<State>: RxResource, Cancelable, @unchecked Sendable {
    private let scheduler: ImmediateSchedulerType
    private let action: @Sendable (State, (State) -> Void) -> Void
    private let group = CompositeDisposable()

    init(scheduler: ImmediateSchedulerType, action: @escaping @Sendable (State, (State) -> Void) -> Void) {
        self.scheduler = scheduler
        self.action = action
    }

    var isDisposed: Bool { group.isDisposed }

    func schedule(_ state: State) {
        let slot = SingleAssignmentDisposable()
        guard let key = group.insert(slot) else { return }
        let box = UncheckedSendable(state)
        let disposable = scheduler.schedule(self) { run in
            run.group.remove(for: key)
            guard !run.isDisposed else { return Disposables.create() }
            run.action(box.value) { next in run.schedule(next) }
            return Disposables.create()
        }
        slot.setDisposable(disposable)
    }

    func dispose() { group.dispose() }
}

/// The pending runs of a timed recursive schedule.
final class RecursiveTimedRun<Scheduler: SchedulerType, State>: RxResource, Cancelable, @unchecked Sendable {
    private let scheduler: Scheduler
    private let action: @Sendable (State, (State, RxTimeInterval) -> Void) -> Void
    private let group = CompositeDisposable()

    init(scheduler: Scheduler, action: @escaping @Sendable (State, (State, RxTimeInterval) -> Void) -> Void) {
        self.scheduler = scheduler
        self.action = action
    }

    var isDisposed: Bool { group.isDisposed }

    func schedule(_ state: State, dueTime: RxTimeInterval) {
        let slot = SingleAssignmentDisposable()
        guard let key = group.insert(slot) else { return }
        let box = UncheckedSendable(state)
        let disposable = scheduler.scheduleRelative(self, dueTime: dueTime) { run in
            run.group.remove(for: key)
            guard !run.isDisposed else { return Disposables.create() }
            run.action(box.value) { next, delay in run.schedule(next, dueTime: delay) }
            return Disposables.create()
        }
        slot.setDisposable(disposable)
    }

    func dispose() { group.dispose() }
}
