/// Items handed to a target one at a time, in the order they were submitted, from any
/// number of threads: the one serial-delivery primitive of the package, used by Rx's
/// operators that receive events from several sources at once (merge, flatMap,
/// combineLatest, zip, timers racing elements…) and by Leash's executions (progress from a
/// transport's thread, a value from an interceptor calling back on another, a timeout from
/// a timer).
///
/// A plain value kept inside its owner's `LockedState`, which decides under the lock and
/// delivers after it, so no lock is held while the target runs. A thread that submits while
/// another is delivering leaves its item to that thread; a re-entrant submit from the target
/// on the same thread is queued and delivered right after the current item returns, not
/// deadlocked. Once a closing item was submitted (a terminal event), or the line closed,
/// later items are dropped.
///
/// ```swift
/// var event = lock.withLock { $0.delivery.submit(.next(value)) }
/// while let current = event {
///     downstream.on(current)
///     event = lock.withLock { $0.delivery.next() }
/// }
/// ```
///
/// An owner that must let its target go once the line is over (so that nothing a finished
/// execution held stays alive through it) delivers with `LockedState.deliver(_:closing:hand:release:)`,
/// whose `release` runs exactly once, on the thread that delivered the last item.
@usableFromInline
package struct DeliveryLine<Item> {
    /// What the deliverer does after an item (see `nextStep()`).
    @usableFromInline
    package enum Step {
        /// Delivers this item next.
        case deliver(Item)
        /// Nothing waits: it stops delivering.
        case idle
        /// The line is closed and its last item delivered: it lets the target go.
        case over
    }

    /// The items waiting, from `head` on.
    @usableFromInline var pending: [Item] = []
    /// Where the waiting items begin in `pending` (those before were delivered).
    @usableFromInline var head = 0
    /// Whether a thread is delivering.
    @usableFromInline var isDelivering = false
    /// Whether a closing item was submitted or the line closed: nothing is taken after.
    /// An owner may set it to drop what comes later without a closing item of its own.
    @usableFromInline package var isClosed = false
    /// Whether someone was told to let the target go: exactly one party is, once.
    @usableFromInline var isReleased = false

    @inlinable package init() {}

    /// Submits `item`; returns it if the caller is to deliver it now (nobody else is, and
    /// it then calls `next()` until it returns `nil`), else it waits for whoever is, or is
    /// dropped once the line is closed. A `closing` item is the last one taken.
    @inlinable
    package mutating func submit(_ item: Item, closing: Bool) -> Item? {
        enter(closing: closing, orQueue: item) ? item : nil
    }

    /// As `submit(_:closing:)`, with the item made only when it must wait: generic code
    /// that delivers in place (the common case) then never builds one.
    @inlinable
    package mutating func enter(closing: Bool = false, orQueue item: @autoclosure () -> Item) -> Bool {
        guard !isClosed else { return false }
        if closing { isClosed = true }
        if isDelivering {
            pending.append(item())
            return false
        }
        isDelivering = true
        return true
    }

    /// The next waiting item for the deliverer, or `nil` (and it stops delivering).
    @inlinable
    package mutating func next() -> Item? {
        if head < pending.count {
            let item = pending[head]
            head += 1
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
        isDelivering = false
        return nil
    }

    /// As `next()`, saying also when the target is to be let go: after the last item of a
    /// closed line, once.
    @inlinable
    package mutating func nextStep() -> Step {
        if let item = next() { return .deliver(item) }
        guard isClosed, !isReleased else { return .idle }
        isReleased = true
        return .over
    }

    /// Closes the line: the items waiting are dropped (returned, to be released outside
    /// the lock), and nothing is taken from now on. `over` is true if nobody is delivering
    /// and the target was not let go yet: the caller then lets it go itself (else the
    /// deliverer does, at its next step, or did already).
    package mutating func close() -> (over: Bool, dropped: [Item]) {
        isClosed = true
        let dropped = Array(pending[head...])
        pending.removeAll()
        head = 0
        let over = !isDelivering && !isReleased
        if over { isReleased = true }
        return (over, dropped)
    }
}

extension DeliveryLine {
    /// Submits an event; returns it if the caller must deliver it now. A stop event is the
    /// last one taken.
    @inlinable
    package mutating func submit<Output>(_ event: Event<Output>) -> Event<Output>? where Item == Event<Output> {
        submit(event, closing: event.isStopEvent)
    }
}

extension LockedState {
    /// Delivers `first` and then every item queued behind it, one at a time, calling
    /// `deliver` outside the lock. `queue` selects the `DeliveryLine` in the state.
    @inlinable
    package func drain<Item>(
        startingWith first: Item?,
        queue: WritableKeyPath<State, DeliveryLine<Item>>,
        deliver: (Item) -> Void
    ) {
        var item = first
        while let current = item {
            deliver(current)
            item = withLock { $0[keyPath: queue].next() }
        }
    }

    /// Submits an item to the line kept here (see `DeliveryLine.enter(closing:orQueue:)`):
    /// `true` if the caller is to deliver it now, and then `drain(hand:release:)`.
    @inlinable
    package func enter<Item>(closing: Bool = false, orQueue item: @autoclosure () -> Item) -> Bool
    where State == DeliveryLine<Item> {
        withLock { $0.enter(closing: closing, orQueue: item()) }
    }

    /// As the deliverer: hands what waits to `hand`, until the line is idle, or over (then
    /// `release` lets the target go).
    @inlinable
    package func drain<Item>(hand: (Item) -> Void, release: () -> Void) where State == DeliveryLine<Item> {
        while true {
            switch withLock({ $0.nextStep() }) {
            case .deliver(let item): hand(item)
            case .idle: return
            case .over: return release()
            }
        }
    }

    /// Delivers `item` through the line kept here: in place if nobody else is delivering,
    /// then whatever was submitted meanwhile; else leaves it to the thread that is.
    @inlinable
    package func deliver<Item>(_ item: Item, closing: Bool = false, hand: (Item) -> Void, release: () -> Void)
    where State == DeliveryLine<Item> {
        guard enter(closing: closing, orQueue: item) else { return }
        hand(item)
        drain(hand: hand, release: release)
    }

    /// Closes the line kept here: items waiting or submitted later are dropped, and the
    /// target is let go (by `release` now, or by the thread delivering, after its item).
    package func close<Item>(release: () -> Void) where State == DeliveryLine<Item> {
        let (over, dropped) = withLock { $0.close() }
        withExtendedLifetime(dropped) {}
        if over { release() }
    }
}
