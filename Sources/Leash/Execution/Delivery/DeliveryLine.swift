import Rx

/// Items handed to a target one at a time, in the order they were submitted, from any
/// number of threads: the one serial-delivery primitive of the package.
///
/// An execution feeds its subscriber from several places at once (progress from the
/// transport's thread, a value from an interceptor calling back on another, a cache value
/// racing the network, a timeout from a timer), and Rx's grammar forbids calling an
/// observer concurrently. A thread that submits while another is delivering leaves its
/// item to that thread, so no lock is held while the target runs and a re-entrant submit
/// is queued, not deadlocked. Once a closing item (a terminal event) was submitted, or
/// `close()` called, later items are dropped and the target is let go after its last
/// item, so that nothing a finished execution held stays alive through it.
///
/// A plain value, kept behind its owner's `LockedState` (decided under the lock, delivered
/// after it): `LockedState.deliver(_:closing:to:)` delivers in place; the callback forms
/// drain it on a dispatch queue instead (`CallbackQueue`).
struct DeliveryLine<Item, Target> {
    private var target: Target?
    private var pending: [Item] = []
    private var isDelivering = false
    /// Whether the closing item was submitted (or `close()` called).
    private var isClosed = false

    init(_ target: Target) {
        self.target = target
    }

    /// Submits `item`: returns it, with the target, if the caller is to deliver it now
    /// (nobody else is delivering); else queues it for whoever is (or drops it once
    /// closed). A `closing` item is the last one taken.
    mutating func submit(_ item: Item, closing: Bool = false) -> (Target, Item)? {
        guard !isClosed, let target else { return nil }
        if closing { isClosed = true }
        if isDelivering {
            pending.append(item)
            return nil
        }
        isDelivering = true
        return (target, item)
    }

    /// The deliverer is done with its item: the next one to deliver, or `nil` (it stops
    /// delivering; once closed, the target is let go).
    mutating func next() -> (Target, Item)? {
        guard let target, !pending.isEmpty else {
            isDelivering = false
            if isClosed { target = nil }
            return nil
        }
        return (target, pending.removeFirst())
    }

    /// Drops the items waiting and any submitted later, and lets the target go; returns
    /// what it dropped, to be released outside the lock.
    mutating func close() -> (Target?, [Item]) {
        isClosed = true
        defer {
            target = nil
            pending.removeAll()
        }
        return (target, pending)
    }
}

extension LockedState {
    /// Delivers `item` through the line kept here: this thread hands it to `deliver`, and
    /// then whatever other threads (or `deliver` itself) submitted meanwhile; or, if
    /// another thread is delivering, leaves it to that thread.
    func deliver<Item, Target>(_ item: Item, closing: Bool = false, to deliver: (Target, Item) -> Void)
    where State == DeliveryLine<Item, Target> {
        var next = withLock { $0.submit(item, closing: closing) }
        while let (target, current) = next {
            deliver(target, current)
            next = withLock { $0.next() }
        }
    }

    /// Closes the line kept here (see `DeliveryLine.close()`), releasing what it held
    /// outside the lock.
    func closeLine<Item, Target>() where State == DeliveryLine<Item, Target> {
        let dropped = withLock { $0.close() }
        withExtendedLifetime(dropped) {}
    }
}
