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
final class ExecutionDeadline: @unchecked Sendable {
    // @unchecked: all mutable state is behind `lock`; `limits` is immutable.

    /// Which limits apply, in seconds.
    struct Limits: Equatable {
        /// From subscription to the end, whatever happens.
        var whole: TimeInterval?
        /// Without any byte sent or received (or a response head) for this long.
        var idle: TimeInterval?

        var isEmpty: Bool { whole == nil && idle == nil }
    }

    private enum State {
        /// Running: a timer may end the execution.
        case armed
        /// The final value is being delivered: the deadline was met.
        case settled
        /// A timer passed while settled; fires if a retry re-arms the deadline.
        case passedWhileSettled(TimeInterval)
        /// Ended: the timeout was reported or the execution is over.
        case over
    }

    let limits: Limits
    private let manager: Manager
    private let lock = Lock()
    private var state = State.armed
    /// What the deadline ends (a protocol, not a closure: one allocation less per
    /// execution).
    private var target: DeadlineTarget?
    private var wholeTimer: Disposable?
    private var idleTimer: Disposable?
    /// When bytes last moved, on the manager's scheduler's clock.
    private var lastActivity: Date
    /// While suspended, the idle limit waits.
    private var isIdlePaused = false
    /// Progress events being handed to the subscriber now: the idle limit waits for them.
    private var deliveries = 0

    /// A deadline for `manager`'s scheduler; `start(_:)` arms it.
    init(limits: Limits, manager: Manager) {
        self.limits = limits
        self.manager = manager
        self.lastActivity = manager.scheduler.now
    }

    /// Arms the timers; `target` is told at most once, with the limit that passed,
    /// unless the deadline is settled or cancelled first.
    func start(_ target: DeadlineTarget) {
        lock.withLock {
            self.target = target
            lastActivity = manager.scheduler.now
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
        lock.withLock { lastActivity = now }
    }

    /// Suspended (`true`) or resumed: the idle limit does not run while suspended, and
    /// counts from the resume.
    func pauseIdle(_ paused: Bool) {
        guard limits.idle != nil else { return }
        let now = manager.scheduler.now
        lock.withLock {
            isIdlePaused = paused
            lastActivity = now
        }
    }

    /// Runs `deliver` (handing progress to the subscriber) without counting the time it
    /// takes towards the idle limit: the transport's next chunks wait behind it on their
    /// delivery queue, so a slow subscriber would otherwise look like a stalled network.
    /// The idle limit counts again from its end.
    func delivering(_ deliver: () -> Void) {
        guard limits.idle != nil else { return deliver() }
        lock.withLock { deliveries += 1 }
        deliver()
        let now = manager.scheduler.now
        lock.withLock {
            deliveries -= 1
            lastActivity = now
        }
    }

    /// The final value of an attempt is about to be delivered: the deadline is met.
    /// Returns false if the timeout won the race (then the value must not be delivered:
    /// the timeout ends the execution).
    func settle() -> Bool {
        lock.withLock {
            switch state {
            case .armed, .settled, .passedWhileSettled:
                if case .armed = state { state = .settled }
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
        let passed = lock.withLock { () -> TimeInterval? in
            switch state {
            case .settled:
                state = .armed
                return nil
            case .passedWhileSettled(let seconds):
                state = .over
                target = nil
                return seconds
            case .armed, .over:
                return nil
            }
        }
        guard let passed else { return }
        cancelTimers()
        throw LeashError.timeout(seconds: passed)
    }

    /// The execution is over: the timers stop and let go of what they hold.
    func cancel() {
        let target = lock.withLock { () -> DeadlineTarget? in
            state = .over
            defer { self.target = nil }
            return self.target
        }
        cancelTimers()
        // Let go of outside the lock: freeing it may free the execution.
        withExtendedLifetime(target) {}
    }

    private func passed(_ seconds: TimeInterval) {
        let target = lock.withLock { () -> DeadlineTarget? in
            switch state {
            case .armed:
                state = .over
                defer { self.target = nil }
                return self.target
            case .settled:
                state = .passedWhileSettled(seconds)
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
            let remaining = self.lock.withLock {
                self.isIdlePaused || self.deliveries > 0 ? idle : idle - now.timeIntervalSince(self.lastActivity)
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
    private func keep(_ timer: Disposable, _ store: (ExecutionDeadline, Disposable?) -> Void) {
        let disposeNow = lock.withLock { () -> Bool in
            if case .over = state { return true }
            store(self, timer)
            return false
        }
        if disposeNow { timer.dispose() }
    }

    private func cancelTimers() {
        let (whole, idle) = lock.withLock { () -> (Disposable?, Disposable?) in
            defer {
                wholeTimer = nil
                idleTimer = nil
            }
            return (wholeTimer, idleTimer)
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
