import Dispatch
import Foundation
import Rx

/// The deadlines of executions on the default scheduler, all on one dispatch timer.
///
/// A timeout per execution as a dispatch timer of its own (a timer source made, armed and
/// cancelled per request, with an Rx operator around it) cost about twice the rest of the
/// pipeline. Here a deadline is one small object in a list: executions with the same
/// timeout are due in the order they started, so each list is kept in order by appending
/// (O(1)), a finished execution unlinks its deadline at once (O(1), and what its action
/// held is let go then, not a minute later), and the one timer is armed for the earliest
/// head and re-armed only when that changes.
///
/// Actions run on a global queue, each on its own, so a slow one cannot hold up the others.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked: `DispatchSourceTimer` is not `Sendable`: it is set up in `init` and
    // only armed under the lock after; the mutable state is behind `state`.

    /// The timer of managers on the default scheduler.
    static let shared = DeadlineTimer()

    /// The deadlines pending and when the timer is armed for, decided under the lock.
    private struct State {
        /// One list per timeout length (in nanoseconds): few, in practice one or two.
        var lists: [UInt64: DeadlineList] = [:]
        /// When the timer is armed to fire, if it is.
        var armedFor: UInt64?

        /// Adds `deadline`; returns when to arm the timer for, if it must be armed earlier.
        mutating func insert(_ deadline: Deadline) -> UInt64? {
            let list =
                lists[deadline.length]
                ?? {
                    let created = DeadlineList()
                    lists[deadline.length] = created
                    return created
                }()
            list.insert(deadline)
            guard armedFor.map({ deadline.due < $0 }) ?? true else { return nil }
            armedFor = deadline.due
            return deadline.due
        }

        /// Takes `deadline` out; returns its action (once), to be let go of.
        mutating func remove(_ deadline: Deadline) -> (@Sendable () -> Void)? {
            guard deadline.isScheduled, let list = lists[deadline.length] else { return nil }
            // The timer stays armed: firing early finds nothing due and re-arms.
            return list.remove(deadline)
        }

        /// Takes out every deadline due by `now`: their actions, and when to arm the timer
        /// for next (nil: nothing is left, and it is disarmed).
        mutating func takeDue(at now: UInt64) -> (actions: [@Sendable () -> Void], next: UInt64?) {
            var actions: [@Sendable () -> Void] = []
            var next: UInt64?
            for (length, list) in lists {
                while let head = list.head, head.due <= now {
                    if let action = list.remove(head) { actions.append(action) }
                }
                if let head = list.head {
                    next = min(next ?? head.due, head.due)
                } else {
                    lists[length] = nil
                }
            }
            armedFor = next
            return (actions, next)
        }
    }

    private let state = LockedState(State())
    private let queue = DispatchQueue(label: "leash.deadlines")
    private let timer: DispatchSourceTimer

    init() {
        timer = DispatchSource.makeTimerSource(queue: queue)
        // Weak: a handler already running when a (test's) timer is freed finds it gone.
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// Runs `action` `seconds` from now unless the returned deadline is disposed first.
    func schedule(after seconds: TimeInterval, action: @escaping @Sendable () -> Void) -> Disposable {
        let length = UInt64((seconds * 1e9).rounded(.up))
        let now = DispatchTime.now().uptimeNanoseconds
        let deadline = Deadline(due: now &+ length, length: length, owner: self, action: action)
        // Armed under the lock (a timer call, no app code): two threads arming after it
        // could otherwise leave the timer set for the later of their deadlines.
        state.withLock { state in
            if let due = state.insert(deadline) { arm(for: due) }
        }
        return deadline
    }

    /// Takes `deadline` out (its execution ended first).
    fileprivate func remove(_ deadline: Deadline) {
        let released = state.withLock { $0.remove(deadline) }
        // Let go of here, outside the lock: what the action holds may run deinits.
        withExtendedLifetime(released) {}
    }

    /// Under the lock: fires at `due` (nanoseconds of uptime).
    private func arm(for due: UInt64) {
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: due), leeway: .nanoseconds(0))
    }

    /// On the timer's queue: runs every deadline that is due, re-arms for the next.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [@Sendable () -> Void] in
            let (actions, next) = state.takeDue(at: now)
            if let next { arm(for: next) }
            return actions
        }
        for action in due { DispatchQueue.global().async(execute: action) }
    }
}

/// One execution's deadline: a node of its list; disposing it takes it out.
private final class Deadline: Disposable, @unchecked Sendable {
    // @unchecked: the links and the action are only touched under the timer's lock.
    let due: UInt64
    let length: UInt64
    /// Strong: a timer with deadlines pending stays until they fire or are disposed.
    private let owner: DeadlineTimer
    private var action: (@Sendable () -> Void)?
    fileprivate var previous: Deadline?
    fileprivate var next: Deadline?
    fileprivate var isScheduled = false

    init(due: UInt64, length: UInt64, owner: DeadlineTimer, action: @escaping @Sendable () -> Void) {
        self.due = due
        self.length = length
        self.owner = owner
        self.action = action
    }

    func dispose() {
        owner.remove(self)
    }

    /// Under the lock: the action, once.
    fileprivate func takeAction() -> (@Sendable () -> Void)? {
        defer { action = nil }
        return action
    }
}

/// The deadlines of one timeout length, earliest first (a doubly linked list: appending
/// and unlinking are O(1)).
private final class DeadlineList {
    private(set) var head: Deadline?
    private var tail: Deadline?

    /// Adds `deadline` in order: at the tail, unless threads raced to add (then a step or
    /// two back).
    func insert(_ deadline: Deadline) {
        deadline.isScheduled = true
        var before = tail
        while let candidate = before, candidate.due > deadline.due { before = candidate.previous }
        let after = before == nil ? head : before?.next
        deadline.previous = before
        deadline.next = after
        if let before { before.next = deadline } else { head = deadline }
        if let after { after.previous = deadline } else { tail = deadline }
    }

    /// Unlinks `deadline`; returns its action (once), for the caller to run or let go of.
    func remove(_ deadline: Deadline) -> (@Sendable () -> Void)? {
        guard deadline.isScheduled else { return nil }
        deadline.isScheduled = false
        if let previous = deadline.previous { previous.next = deadline.next } else { head = deadline.next }
        if let following = deadline.next { following.previous = deadline.previous } else { tail = deadline.previous }
        deadline.previous = nil
        deadline.next = nil
        return deadline.takeAction()
    }
}
