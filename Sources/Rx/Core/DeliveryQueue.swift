/// Serialises delivery for operators that receive events from several sources at once
/// (merge, flatMap, combineLatest, zip, …), without holding a lock while calling
/// downstream.
///
/// Embed it in the operator's locked state. Under the lock, `submit` either hands the
/// event back (the caller is now the deliverer and must call downstream, then `next()`
/// under the lock until it returns `nil`) or queues it for the thread already
/// delivering. A re-entrant event from downstream on the same thread is queued and
/// delivered right after the current one returns. After a terminal event, later events
/// are dropped.
///
/// ```swift
/// var event = lock.withLock { $0.delivery.submit(.next(value)) }
/// while let current = event {
///     downstream.on(current)
///     event = lock.withLock { $0.delivery.next() }
/// }
/// ```
@usableFromInline
struct DeliveryQueue<Output> {
    @usableFromInline var pending: [Event<Output>] = []
    @usableFromInline var head = 0
    @usableFromInline var isDelivering = false
    /// Whether a terminal event has been submitted.
    @usableFromInline var isTerminated = false

    @inlinable init() {}

    /// Submits an event; returns it if the caller must deliver it now.
    @inlinable
    mutating func submit(_ event: Event<Output>) -> Event<Output>? {
        if isTerminated { return nil }
        if event.isStopEvent { isTerminated = true }
        if isDelivering {
            pending.append(event)
            return nil
        }
        isDelivering = true
        return event
    }

    /// The next queued event for the deliverer, or `nil` (and delivery ends).
    @inlinable
    mutating func next() -> Event<Output>? {
        if head < pending.count {
            let event = pending[head]
            head += 1
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            return event
        }
        isDelivering = false
        return nil
    }
}

extension LockedState {
    /// Delivers `first` and then every event queued behind it, one at a time, calling
    /// `deliver` outside the lock. `queue` selects the `DeliveryQueue` in the state.
    @inlinable
    func drain<Output>(
        startingWith first: Event<Output>?,
        queue: WritableKeyPath<State, DeliveryQueue<Output>>,
        deliver: (Event<Output>) -> Void
    ) {
        var event = first
        while let current = event {
            deliver(current)
            event = withLock { $0[keyPath: queue].next() }
        }
    }
}
