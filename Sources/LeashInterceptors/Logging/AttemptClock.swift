import Foundation
import Leash
import Rx

/// When each attempt a `LoggerInterceptor` saw started, so that its outcome line can say
/// how long it took.
///
/// Keyed by the attempt's `DataRequest` (one per attempt, shared by every stage of it),
/// held weakly: an attempt that never reaches the completion stage (cancelled, timed
/// out) leaves an entry that is dropped once its request is gone.
final class AttemptClock: Sendable {
    private struct Entry {
        weak var request: DataRequest?
        let start: Date
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
        state.withLock { state in
            if state.entries.count >= state.sweepAt {
                state.entries = state.entries.filter { $0.value.request != nil }
                state.sweepAt = max(64, state.entries.count * 2)
            }
            state.entries[ObjectIdentifier(request)] = Entry(request: request, start: date)
        }
    }

    /// The time from the start of `request`'s attempt to `now`, if it was recorded.
    func elapsed(_ request: DataRequest, now: Date) -> TimeInterval? {
        state.withLock { state in
            guard let entry = state.entries[ObjectIdentifier(request)], entry.request === request else { return nil }
            return now.timeIntervalSince(entry.start)
        }
    }
}
