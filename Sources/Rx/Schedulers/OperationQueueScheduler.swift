import Dispatch
import Foundation

/// A scheduler that runs work as operations on an `OperationQueue`.
///
/// RxSwift's version only schedules immediately; this one also schedules after a delay
/// and periodically (a dispatch timer adds the operation when due). Disposing a scheduled
/// action cancels its operation; an action disposed before its operation starts never
/// runs.
public final class OperationQueueScheduler: SchedulerType, @unchecked Sendable {
    // Sendable: immutable; `OperationQueue` is thread-safe.

    /// The queue the operations are added to.
    public let operationQueue: OperationQueue
    /// The priority of the operations.
    public let queuePriority: Operation.QueuePriority

    /// A scheduler adding operations of priority `queuePriority` to `operationQueue`.
    public init(operationQueue: OperationQueue, queuePriority: Operation.QueuePriority = .normal) {
        self.operationQueue = operationQueue
        self.queuePriority = queuePriority
    }

    /// The current time.
    public var now: RxTime { Date() }

    /// Schedules `action` as an operation.
    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        let scheduled = OperationScheduledAction(state: state, action: action)
        enqueue(scheduled)
        return scheduled
    }

    /// Schedules `action` as an operation added after `dueTime`.
    public func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let scheduled = OperationScheduledAction(state: state, action: action)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + dueTime)
        scheduled.startTimer(timer) { [self] in enqueue(scheduled) }
        return scheduled
    }

    /// Schedules `action` as an operation after `startAfter`, then every `period`. Each
    /// run is added when the previous one has finished, so runs never overlap.
    public func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        let periodic = OperationPeriodicRun(scheduler: self, state: state, period: period, action: action)
        periodic.schedule(after: startAfter)
        return periodic
    }

    fileprivate func enqueue(_ scheduled: OperationScheduledAction<some Any>) {
        let operation = BlockOperation { scheduled.run() }
        operation.queuePriority = queuePriority
        guard scheduled.setOperation(operation) else { return }
        operationQueue.addOperation(operation)
    }
}

/// One action scheduled on an operation queue.
private final class OperationScheduledAction<StateType>: RxResource, Cancelable, @unchecked Sendable {
    // Sendable: all mutable state is in `state`, behind the lock.
    private struct State {
        var work: (state: StateType, action: @Sendable (StateType) -> Disposable)?
        var operation: Operation?
        var timer: DispatchSourceTimer?
        var result: Disposable?
        var isDisposed = false
    }

    private let state: LockedState<State>

    init(state: StateType, action: @escaping @Sendable (StateType) -> Disposable) {
        self.state = LockedState(State(work: (state, action)))
        super.init()
    }

    var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// Calls `fire` when `timer` fires, unless disposed first.
    func startTimer(_ timer: DispatchSourceTimer, fire: @escaping @Sendable () -> Void) {
        let started = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            state.timer = timer
            return true
        }
        guard started else { return discardInactive(timer) }
        timer.setEventHandler {
            let fired = self.state.withLock { state -> DispatchSourceTimer? in
                defer { state.timer = nil }
                return state.timer
            }
            fired?.cancel()
            if fired != nil { fire() }
        }
        timer.resume()
    }

    /// Records the operation about to be added; `false` if already disposed.
    func setOperation(_ operation: Operation) -> Bool {
        state.withLock { state in
            guard !state.isDisposed else { return false }
            state.operation = operation
            return true
        }
    }

    func run() {
        let work = state.withLock { state -> (StateType, @Sendable (StateType) -> Disposable)? in
            defer {
                state.work = nil
                state.operation = nil
            }
            return state.work
        }
        guard let (value, action) = work else { return }
        let result = action(value)
        let disposeNow = state.withLock { state -> Bool in
            if state.isDisposed { return true }
            state.result = result
            return false
        }
        if disposeNow { result.dispose() }
    }

    func dispose() {
        let taken = state.withLock { state -> (Operation?, DispatchSourceTimer?, Disposable?) in
            guard !state.isDisposed else { return (nil, nil, nil) }
            state.isDisposed = true
            defer {
                state.work = nil
                state.operation = nil
                state.timer = nil
                state.result = nil
            }
            return (state.operation, state.timer, state.result)
        }
        taken.0?.cancel()
        taken.1?.cancel()
        taken.2?.dispose()
    }
}

/// A periodic action on an operation queue: each run schedules the next one.
private final class OperationPeriodicRun<StateType>: RxResource, Cancelable, @unchecked Sendable {
    // Sendable: `value` is only touched by the runs, which never overlap (each is
    // scheduled by the previous one); the pending run is in a `SerialDisposable`.
    private let scheduler: OperationQueueScheduler
    private var value: StateType
    private let period: RxTimeInterval
    private let action: @Sendable (StateType) -> StateType
    private let pending = SerialDisposable()

    init(
        scheduler: OperationQueueScheduler, state: StateType, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) {
        self.scheduler = scheduler
        value = state
        self.period = period
        self.action = action
        super.init()
    }

    var isDisposed: Bool { pending.isDisposed }

    func schedule(after delay: RxTimeInterval) {
        pending.disposable = scheduler.scheduleRelative(self, dueTime: delay) { run in
            run.tick()
            return Disposables.create()
        }
    }

    private func tick() {
        guard !isDisposed else { return }
        value = action(value)
        schedule(after: period)
    }

    func dispose() {
        pending.dispose()
    }
}
