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
    private var onExpire: (@Sendable (TimeInterval) -> Void)?
    private var wholeTimer: Disposable?
    private var idleTimer: Disposable?
    /// When bytes last moved, on the manager's scheduler's clock.
    private var lastActivity: Date
    /// Progress events being handed to the subscriber now: the idle limit waits for them.
    private var deliveries = 0

    /// A deadline for `manager`'s scheduler; `start(_:)` arms it.
    init(limits: Limits, manager: Manager) {
        self.limits = limits
        self.manager = manager
        self.lastActivity = manager.scheduler.now
    }

    /// Arms the timers; `onExpire` is called at most once, with the limit that passed,
    /// unless the deadline is settled or cancelled first.
    func start(onExpire: @escaping @Sendable (TimeInterval) -> Void) {
        lock.withLock {
            self.onExpire = onExpire
            lastActivity = manager.scheduler.now
        }
        if let whole = limits.whole {
            let timer = manager.deadline(after: whole) { [weak self] in self?.passed(whole) }
            keep(timer) { $0.wholeTimer = $1 }
        }
        if let idle = limits.idle { armIdle(after: idle) }
    }

    /// Bytes moved (or a head arrived): the idle limit counts from now.
    func recordActivity() {
        guard limits.idle != nil else { return }
        let now = manager.scheduler.now
        lock.withLock { lastActivity = now }
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
                onExpire = nil
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
        lock.withLock {
            state = .over
            onExpire = nil
        }
        cancelTimers()
    }

    private func passed(_ seconds: TimeInterval) {
        let onExpire = lock.withLock { () -> (@Sendable (TimeInterval) -> Void)? in
            switch state {
            case .armed:
                state = .over
                defer { self.onExpire = nil }
                return self.onExpire
            case .settled:
                state = .passedWhileSettled(seconds)
                return nil
            case .passedWhileSettled, .over:
                return nil
            }
        }
        guard let onExpire else { return }
        cancelTimers()
        onExpire(seconds)
    }

    /// Arms the idle timer for `delay` from now; when it fires, it fires the limit if no
    /// bytes moved since, else arms itself again for the rest (one timer per idle period,
    /// not one per chunk of a long transfer).
    private func armIdle(after delay: TimeInterval) {
        guard let idle = limits.idle else { return }
        let timer = manager.deadline(after: delay) { [weak self] in
            guard let self else { return }
            let now = manager.scheduler.now
            let remaining = lock.withLock { deliveries > 0 ? idle : idle - now.timeIntervalSince(lastActivity) }
            // Within a millisecond counts as passed: the timer's resolution.
            if remaining <= 0.001 {
                passed(idle)
            } else {
                armIdle(after: remaining)
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
        let timers = lock.withLock { () -> [Disposable?] in
            defer {
                wholeTimer = nil
                idleTimer = nil
            }
            return [wholeTimer, idleTimer]
        }
        for timer in timers { timer?.dispose() }
    }
}
