import Dispatch
import Foundation

/// The bytes of a stream handed to its delivery queue and not yet taken by the subscriber,
/// and how the connection is held back when they pass the policy's limit (see
/// `SlowSubscriberPolicy`):
///
/// - `byWaiting` (Linux): URLSession's queue waits in `add` until the subscriber takes
///   enough, the stream is closed, or it took nothing for the policy's longest hold (then
///   `add` reports the overflow, and the stream fails). The delegate runs in place on
///   URLSession's work queue there, so the wait stops libcurl reading from the socket and
///   TCP flow control reaches the server. The wait is on the stream's own session, whose
///   queue Leash never waits for (its cancel is issued from another queue), so it cannot
///   deadlock Leash.
/// - `bySuspending` (Apple platforms): the task is suspended, which Apple documents as
///   making no network traffic, and resumed once the subscriber caught up. Waiting would
///   not do there: URLSession hands delegate calls to the session's delegate queue and goes
///   on reading, so the chunks would pile up in that queue instead. A subscriber that takes
///   nothing for the longest hold gets the overflow from a timer (see
///   `whenSuspendedTooLong`). Compiled and unit-tested on Linux, run against a server only
///   on Apple platforms: FoundationNetworking's `suspend()` does not pause a running
///   transfer.
final class StreamBacklog: @unchecked Sendable {
    // @unchecked: all state is behind `condition`: a condition, not a `LockedState`,
    // since URLSession's queue waits on it for the subscriber (`byWaiting`).

    /// How the connection is held back (see the type).
    enum Holding {
        /// URLSession's queue waits in `add`.
        case byWaiting
        /// The task is suspended until the subscriber catches up.
        case bySuspending(any SuspendableTask)
    }

    private let policy: SlowSubscriberPolicy
    private let holding: Holding
    private let condition = NSCondition()
    private var waiting = 0
    /// Chunks the subscriber took: a hold lasts while this does not move.
    private var deliveries = 0
    private var isOpen = true
    /// Whether the task is suspended (`bySuspending`).
    private var isSuspended = false
    /// Told the bytes waiting when a suspended stream's subscriber took nothing for the
    /// longest hold.
    private var onSuspendedOverflow: (@Sendable (Int) -> Void)?

    init(_ policy: SlowSubscriberPolicy, holding: Holding) {
        self.policy = policy
        self.holding = holding
    }

    /// Sets what is told when a suspended stream's subscriber took nothing for the longest
    /// hold (`bySuspending` only; it must end the stream).
    func whenSuspendedTooLong(_ handler: @escaping @Sendable (Int) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        onSuspendedOverflow = handler
    }

    /// Counts `count` more bytes waiting; beyond the limit, holds the connection back (see
    /// the type). Returns the bytes waiting if the subscriber took nothing for the longest
    /// hold while URLSession's queue waited (the stream must end), else nil.
    func add(_ count: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        waiting += count
        guard waiting > policy.bufferLimit, isOpen else { return nil }
        switch holding {
        case .byWaiting:
            return waitForTheSubscriber()
        case .bySuspending(let task):
            if !isSuspended {
                isSuspended = true
                task.suspend()
                scheduleHoldCheck(seen: deliveries)
            }
            return nil
        }
    }

    /// Waits (with `condition` locked) while too much waits; see `add`.
    private func waitForTheSubscriber() -> Int? {
        var seen = deliveries
        var deadline = policy.longestHold.map { Date(timeIntervalSinceNow: $0) }
        while waiting > policy.bufferLimit && isOpen {
            guard let until = deadline else {
                condition.wait()
                continue
            }
            let woken = condition.wait(until: until)
            if deliveries != seen {
                // Progress: the hold starts over.
                seen = deliveries
                deadline = policy.longestHold.map { Date(timeIntervalSinceNow: $0) }
            } else if !woken || Date() >= until {
                isOpen = false
                return waiting
            }
            // Woken without progress (a spurious wake-up, which ThreadSanitizer's condition
            // variables make frequent): the same deadline still holds. Restarting the hold
            // on any wake-up once kept a stuck subscriber's stream for its whole 30 s in CI.
        }
        return nil
    }

    /// After the longest hold, ends the stream if the subscriber took nothing since
    /// `seen`; checks again later if it took some but the task is still suspended.
    private func scheduleHoldCheck(seen: Int) {
        guard let hold = policy.longestHold else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + hold) { [self] in
            condition.lock()
            guard isOpen, isSuspended else { return condition.unlock() }
            guard deliveries == seen else {
                scheduleHoldCheck(seen: deliveries)
                return condition.unlock()
            }
            isOpen = false
            let (bytes, handler) = (waiting, onSuspendedOverflow)
            onSuspendedOverflow = nil
            condition.unlock()
            handler?(bytes)
        }
    }

    /// The subscriber took `count` bytes.
    func delivered(_ count: Int) {
        condition.lock()
        defer { condition.unlock() }
        waiting -= count
        deliveries &+= 1
        switch holding {
        case .byWaiting:
            if waiting <= policy.bufferLimit { condition.broadcast() }
        case .bySuspending(let task):
            // Resumed at half the limit, so that a subscriber at the limit does not
            // suspend and resume the task for every chunk.
            if isSuspended && isOpen && waiting <= policy.bufferLimit / 2 {
                isSuspended = false
                task.resume()
            }
        }
    }

    /// The stream ended or was disposed: nothing waits any more.
    func close() {
        condition.lock()
        defer { condition.unlock() }
        isOpen = false
        onSuspendedOverflow = nil
        condition.broadcast()
    }
}

extension StreamBacklog: StreamPacing {
    /// The pipeline kept the chunk just handed on (see `StreamPacing`): its bytes wait
    /// again, and its hand-off, which `delivered` is about to count, was no progress.
    func kept(_ bytes: Int) {
        condition.lock()
        defer { condition.unlock() }
        waiting += bytes
        deliveries &-= 1
    }

    /// A kept chunk reached the subscriber.
    func handedOn(_ bytes: Int) {
        delivered(bytes)
    }
}

/// A task `StreamBacklog` can hold back by suspending it (`TaskState`, or a test's).
protocol SuspendableTask: AnyObject, Sendable {
    /// Stops the task's network traffic until `resume`.
    func suspend()
    /// Lets the task go on after `suspend`.
    func resume()
}

extension TaskState: SuspendableTask {}
