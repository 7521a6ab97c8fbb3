import Foundation
import Rx

/// The time limit of one execution (one subscription): a whole-execution deadline counted
/// from subscription, an idle limit (no bytes moving for so long), or both.
///
/// **A deadline is met once the response is complete.** When the last outcome of an
/// attempt is a value, the attempt *settles* the deadline before handing the value on:
/// from then on the deadline cannot end the execution, however long the app's `onNext`
/// (or decoding) takes before the execution completes. Without this, a slow subscriber
/// saw its value and then `LeashError.timeout` instead of completion, and a callback was
/// called twice. If a retry follows after all (a serialization or operator interceptor
/// asks for one), the deadline is armed again, and if it passed meanwhile it fires then.
/// Settling and firing race under one lock, so exactly one of them wins: either the
/// value is delivered and the execution completes, or the timeout ends it and the value
/// is never delivered.
final class ExecutionDeadline: Sendable {
    /// Which limits apply, in seconds.
    struct Limits: Equatable {
        /// From subscription to the end, whatever happens.
        var whole: TimeInterval?
        /// Without any byte sent or received (or a response head) for this long.
        var idle: TimeInterval?

        var isEmpty: Bool { whole == nil && idle == nil }
    }

    /// Where the deadline is.
    private enum Phase {
        /// Running: a timer may end the execution.
        case armed
        /// The final value is being delivered: the deadline was met.
        case settled
        /// A timer passed while settled; fires if a retry re-arms the deadline.
        case passedWhileSettled(TimeInterval)
        /// Ended: the timeout was reported or the execution is over.
        case over
    }

    /// The mutable part of a deadline, decided under its lock and acted on after.
    private struct State {
        var phase = Phase.armed
        /// What the deadline ends (a protocol, not a closure: one allocation less per
        /// execution).
        var target: DeadlineTarget?
        var wholeTimer: Disposable?
        var idleTimer: Disposable?
        /// When bytes last moved, on the manager's scheduler's clock.
        var lastActivity: Date
        /// While suspended, the idle limit waits.
        var isIdlePaused = false
        /// Progress events being handed to the subscriber now: the idle limit waits for them.
        var deliveries = 0

        /// Ends the deadline: the target, taken out to be told or let go of outside the lock.
        mutating func end() -> DeadlineTarget? {
            phase = .over
            defer { target = nil }
            return target
        }
    }

    let limits: Limits
    private let manager: Manager
    private let state: LockedState<State>

    /// A deadline for `manager`'s scheduler; `start(_:)` arms it.
    init(limits: Limits, manager: Manager) {
        self.limits = limits
        self.manager = manager
        state = LockedState(State(lastActivity: manager.scheduler.now))
    }

    /// Arms the timers; `target` is told at most once, with the limit that passed,
    /// unless the deadline is settled or cancelled first.
    func start(_ target: DeadlineTarget) {
        let now = manager.scheduler.now
        state.withLock { state in
            state.target = target
            state.lastActivity = now
        }
        // The timers hold the deadline until `cancel()`, which every end of the execution
        // calls (a weak reference would cost an allocation per execution).
        if let whole = limits.whole {
            let timer = manager.deadline(after: whole) { self.passed(whole) }
            keep(timer) { $0.wholeTimer = $1 }
        }
        if let idle = limits.idle { armIdle(after: idle) }
    }

    /// As `start(_:)`, calling `onExpire`.
    func start(onExpire: @escaping @Sendable (TimeInterval) -> Void) {
        start(DeadlineAction(onExpire))
    }

    /// Bytes moved (or a head arrived): the idle limit counts from now.
    func recordActivity() {
        guard limits.idle != nil else { return }
        let now = manager.scheduler.now
        state.withLock { $0.lastActivity = now }
    }

    /// Suspended (`true`) or resumed: the idle limit does not run while suspended, and
    /// counts from the resume.
    func pauseIdle(_ paused: Bool) {
        guard limits.idle != nil else { return }
        let now = manager.scheduler.now
        state.withLock { state in
            state.isIdlePaused = paused
            state.lastActivity = now
        }
    }

    /// Runs `deliver` (handing progress to the subscriber) without counting the time it
    /// takes towards the idle limit: the transport's next chunks wait behind it on their
    /// delivery queue, so a slow subscriber would otherwise look like a stalled network.
    /// The idle limit counts again from its end.
    func delivering(_ deliver: () -> Void) {
        guard limits.idle != nil else { return deliver() }
        state.withLock { $0.deliveries += 1 }
        deliver()
        let now = manager.scheduler.now
        state.withLock { state in
            state.deliveries -= 1
            state.lastActivity = now
        }
    }

    /// The final value of an attempt is about to be delivered: the deadline is met.
    /// Returns false if the timeout won the race (then the value must not be delivered:
    /// the timeout ends the execution).
    func settle() -> Bool {
        state.withLock { state in
            switch state.phase {
            case .armed, .settled, .passedWhileSettled:
                if case .armed = state.phase { state.phase = .settled }
                return true
            case .over:
                return false
            }
        }
    }

    /// A retry follows a settled attempt: the deadline runs again.
    ///
    /// - Throws: `LeashError.timeout` if it passed while settled (the retry must not
    ///   start: the execution is over).
    func rearm() throws {
        let (passed, target) = state.withLock { state -> (TimeInterval?, DeadlineTarget?) in
            switch state.phase {
            case .settled:
                state.phase = .armed
                return (nil, nil)
            case .passedWhileSettled(let seconds):
                return (seconds, state.end())
            case .armed, .over:
                return (nil, nil)
            }
        }
        // Let go of outside the lock: freeing it may free the execution.
        withExtendedLifetime(target) {}
        guard let passed else { return }
        cancelTimers()
        throw LeashError.timeout(seconds: passed)
    }

    /// The execution is over: the timers stop and let go of what they hold.
    func cancel() {
        let target = state.withLock { $0.end() }
        cancelTimers()
        // Let go of outside the lock: freeing it may free the execution.
        withExtendedLifetime(target) {}
    }

    private func passed(_ seconds: TimeInterval) {
        let target = state.withLock { state -> DeadlineTarget? in
            switch state.phase {
            case .armed:
                return state.end()
            case .settled:
                state.phase = .passedWhileSettled(seconds)
                return nil
            case .passedWhileSettled, .over:
                return nil
            }
        }
        guard let target else { return }
        cancelTimers()
        target.deadlinePassed(seconds)
    }

    /// Arms the idle timer for `delay` from now; when it fires, it fires the limit if no
    /// bytes moved since, else arms itself again for the rest (one timer per idle period,
    /// not one per chunk of a long transfer).
    private func armIdle(after delay: TimeInterval) {
        guard let idle = limits.idle else { return }
        let timer = manager.deadline(after: delay) {
            let now = self.manager.scheduler.now
            let remaining = self.state.withLock { state in
                state.isIdlePaused || state.deliveries > 0 ? idle : idle - now.timeIntervalSince(state.lastActivity)
            }
            // Within a millisecond counts as passed: the timer's resolution.
            if remaining <= 0.001 {
                self.passed(idle)
            } else {
                self.armIdle(after: remaining)
            }
        }
        keep(timer) { $0.idleTimer = $1 }
    }

    /// Keeps `timer` unless the deadline is over (then disposes it).
    private func keep(_ timer: Disposable, _ store: (inout State, Disposable) -> Void) {
        let disposeNow = state.withLock { state -> Bool in
            if case .over = state.phase { return true }
            store(&state, timer)
            return false
        }
        if disposeNow { timer.dispose() }
    }

    private func cancelTimers() {
        let (whole, idle) = state.withLock { state -> (Disposable?, Disposable?) in
            defer {
                state.wholeTimer = nil
                state.idleTimer = nil
            }
            return (state.wholeTimer, state.idleTimer)
        }
        whole?.dispose()
        idle?.dispose()
    }
}

/// What an execution's deadline ends.
protocol DeadlineTarget: AnyObject, Sendable {
    /// The limit of `seconds` passed.
    func deadlinePassed(_ seconds: TimeInterval)
}

/// A deadline target that runs a closure.
private final class DeadlineAction: DeadlineTarget {
    let action: @Sendable (TimeInterval) -> Void

    init(_ action: @escaping @Sendable (TimeInterval) -> Void) {
        self.action = action
    }

    func deadlinePassed(_ seconds: TimeInterval) {
        action(seconds)
    }
}
