import Rx

/// The outbox's events, delivered one at a time and in the order they were submitted,
/// whatever threads submit them, without a lock held while a subscriber runs.
///
/// `submit` only queues (so it may be called under the outbox's other locks, which is how
/// an item's events keep the order of the store's changes); `drain` delivers what is
/// queued, unless another thread is delivering already, and must be called with no lock
/// held. A subscriber that enqueues from inside its handler gets its event right after the
/// current one.
final class EventLine: Sendable {
    private struct State {
        var queue: [Event<OutboxEvent>] = []
        var isDelivering = false
        var isFinished = false
    }

    private let subject = PublishSubject<OutboxEvent>()
    private let state = LockedState(State())

    /// The events, hot: a subscriber sees those submitted after it subscribed.
    var events: Observable<OutboxEvent> { subject.asObservable() }

    func submit(_ event: OutboxEvent) {
        state.withLock { state in
            if !state.isFinished { state.queue.append(.next(event)) }
        }
    }

    func drain() {
        var batch = state.withLock { state -> [Event<OutboxEvent>] in
            guard !state.isDelivering, !state.queue.isEmpty else { return [] }
            state.isDelivering = true
            defer { state.queue.removeAll() }
            return state.queue
        }
        while !batch.isEmpty {
            for event in batch { subject.on(event) }
            batch = state.withLock { state -> [Event<OutboxEvent>] in
                defer { state.queue.removeAll() }
                if state.queue.isEmpty { state.isDelivering = false }
                return state.queue
            }
        }
    }

    /// Delivers what is queued, then completes the events; later submissions are dropped.
    func finish() {
        state.withLock { state in
            if !state.isFinished { state.queue.append(.completed) }
            state.isFinished = true
        }
        drain()
    }
}
