import Foundation
import Leash
import Rx

/// When each attempt a `LoggerInterceptor` saw started, so that its outcome line can say
/// how long it took, and whether its completion stage logged a failure, so that the
/// execution's end does not log it again.
///
/// Keyed by the `DataRequest` the attempt began with (`attemptRequest`: shared by every
/// stage of it, even after an adapter or a redirect replaced the request), held weakly:
/// an attempt whose execution's end is not seen here leaves an entry that is dropped once
/// its request is gone.
final class AttemptClock: Sendable {
    private struct Entry {
        weak var request: DataRequest?
        var start: Date?
        var loggedFailure = false
    }

    private struct State {
        var entries: [ObjectIdentifier: Entry] = [:]
        /// The size at which dead entries are swept next (doubling with the live ones, so
        /// that sweeping costs a constant time per attempt).
        var sweepAt = 64
    }

    private let state = LockedState(State())

    /// Records that `request`'s attempt started at `date`.
    func start(_ request: DataRequest, at date: Date) {
        update(request) { $0.start = date }
    }

    /// Records that the completion stage logged a failure of `request`'s attempt.
    func loggedFailure(_ request: DataRequest) {
        update(request) { $0.loggedFailure = true }
    }

    /// The time from the start of `request`'s attempt to `now`, if it was recorded.
    func elapsed(_ request: DataRequest, now: Date) -> TimeInterval? {
        state.withLock { state in
            guard let entry = state.entries[ObjectIdentifier(request)], entry.request === request else { return nil }
            return entry.start.map { now.timeIntervalSince($0) }
        }
    }

    /// Forgets `request`'s attempt, the last of an execution that ended: how long it took
    /// until `now` (if its start was recorded), and whether a failure of it was logged.
    func finish(_ request: DataRequest, now: Date) -> (elapsed: TimeInterval?, loggedFailure: Bool) {
        state.withLock { state in
            let key = ObjectIdentifier(request)
            guard let entry = state.entries[key], entry.request === request else { return (nil, false) }
            state.entries[key] = nil
            return (entry.start.map { now.timeIntervalSince($0) }, entry.loggedFailure)
        }
    }

    private func update(_ request: DataRequest, _ change: (inout Entry) -> Void) {
        state.withLock { state in
            if state.entries.count >= state.sweepAt {
                state.entries = state.entries.filter { $0.value.request != nil }
                state.sweepAt = max(64, state.entries.count * 2)
            }
            let key = ObjectIdentifier(request)
            var entry = state.entries[key].flatMap { $0.request === request ? $0 : nil } ?? Entry(request: request)
            change(&entry)
            state.entries[key] = entry
        }
    }
}
