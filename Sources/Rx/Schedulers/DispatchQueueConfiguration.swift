import Dispatch
import Foundation

/// Scheduling on a dispatch queue, shared by the dispatch-queue schedulers: `schedule`
/// is `async`, `scheduleRelative` a one-shot `DispatchSourceTimer`, `schedulePeriodic` a
/// repeating one.
///
/// Every scheduled action checks, on the queue, that it was not disposed before it runs:
/// on a serial queue, disposing from the queue itself therefore guarantees that the
/// action never runs afterwards. Disposing cancels the timer, so pending work (and what
/// its closure holds) is released without waiting for the due time.
struct DispatchQueueConfiguration: Sendable {
    let queue: DispatchQueue
    let leeway: DispatchTimeInterval

    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        let scheduled = DispatchScheduledAction(state: state, action: action)
        queue.async { scheduled.run() }
        return scheduled
    }

    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let scheduled = DispatchScheduledAction(state: state, action: action)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + dueTime, leeway: leeway)
        scheduled.attach(timer)
        return scheduled
    }

    func schedulePeriodic<StateType>(
        _ state: StateType, startAfter: RxTimeInterval, period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        let periodic = DispatchPeriodicAction(state: state, action: action)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + startAfter, repeating: period, leeway: leeway)
        periodic.attach(timer)
        return periodic
    }
}

/// One action scheduled on a dispatch queue, now or when a one-shot timer fires.
final class DispatchScheduledAction<StateType>: RxResource, Cancelable, @unchecked Sendable {
    // Sendable: all mutable state is in `state`, behind the lock; the `StateType` value is
    // handed to the action once, on the queue.
    private struct State {
        var work: (state: StateType, action: @Sendable (StateType) -> Disposable)?
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

    /// Runs the action when `timer` fires. The timer's handler keeps this object alive
    /// until the timer fires or is cancelled.
    func attach(_ timer: DispatchSourceTimer) {
        let attached = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            state.timer = timer
            return true
        }
        guard attached else { return discardInactive(timer) }
        timer.setEventHandler { self.run() }
        timer.resume()
    }

    /// Runs the action unless it was disposed; called on the queue.
    func run() {
        let taken = state.withLock {
            state -> (work: (StateType, @Sendable (StateType) -> Disposable)?, DispatchSourceTimer?) in
            defer {
                state.work = nil
                state.timer = nil
            }
            return (state.work, state.timer)
        }
        taken.1?.cancel()
        guard let (value, action) = taken.work else { return }
        let result = action(value)
        let disposeNow = state.withLock { state -> Bool in
            if state.isDisposed { return true }
            state.result = result
            return false
        }
        if disposeNow { result.dispose() }
    }

    func dispose() {
        let (timer, result) = state.withLock { state -> (DispatchSourceTimer?, Disposable?) in
            guard !state.isDisposed else { return (nil, nil) }
            state.isDisposed = true
            defer {
                state.work = nil
                state.timer = nil
                state.result = nil
            }
            return (state.timer, state.result)
        }
        timer?.cancel()
        result?.dispose()
    }
}

/// A periodic action driven by a repeating dispatch timer.
final class DispatchPeriodicAction<StateType>: RxResource, Cancelable, @unchecked Sendable {
    // Sendable: `value` is only touched by the timer's handler, which dispatch never runs
    // concurrently with itself; the rest is behind the lock.
    private var value: StateType
    private let action: @Sendable (StateType) -> StateType
    private let timer = LockedState<DispatchSourceTimer?>(nil)
    private let disposed = AtomicInt(0)

    init(state: StateType, action: @escaping @Sendable (StateType) -> StateType) {
        value = state
        self.action = action
        super.init()
    }

    var isDisposed: Bool { disposed.load() != 0 }

    /// Starts ticking. The timer's handler keeps this object alive until it is disposed.
    func attach(_ source: DispatchSourceTimer) {
        let attached = timer.withLock { timer -> Bool in
            guard !isDisposed else { return false }
            timer = source
            return true
        }
        guard attached else { return discardInactive(source) }
        source.setEventHandler { self.tick() }
        source.resume()
    }

    private func tick() {
        guard !isDisposed else { return }
        value = action(value)
    }

    func dispose() {
        guard disposed.exchange(1) == 0 else { return }
        let source = timer.withLock { timer -> DispatchSourceTimer? in
            defer { timer = nil }
            return timer
        }
        source?.cancel()
    }
}

/// Releases a timer that was never started: dispatch does not allow freeing an inactive
/// source, so it is cancelled and then activated (its handler never runs).
func discardInactive(_ timer: DispatchSourceTimer) {
    timer.cancel()
    timer.resume()
}
