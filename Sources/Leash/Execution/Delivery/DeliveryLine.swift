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
/// `close()` called, later items are dropped.
///
/// A plain value kept behind its owner's `LockedState`, which decides under the lock and
/// delivers after it (the `LockedState` methods below). The owner keeps the target itself: only the
/// thread that holds the delivering role touches it, and that thread lets it go when the
/// line is over (`Step.over`), so that nothing a finished execution held stays alive
/// through it.
struct DeliveryLine<Item> {
    /// What the deliverer does after an item.
    enum Step {
        /// Delivers this item next.
        case deliver(Item)
        /// Nothing waits: it stops delivering.
        case idle
        /// The line is closed and its last item delivered: it lets the target go.
        case over
    }

    private var pending: [Item] = []
    private var isDelivering = false
    private var isClosed = false
    /// Whether someone was told to let the target go: exactly one party is, once.
    private var isReleased = false

    init() {}

    /// Whether the caller is to deliver its item now (nobody else is delivering); else
    /// `item()` waits for whoever is, or is dropped once the line is closed. A `closing`
    /// item is the last one taken.
    ///
    /// The item is only made when it must wait: generic code that delivers in place (the
    /// common case) then never builds one.
    mutating func enter(closing: Bool = false, orQueue item: @autoclosure () -> Item) -> Bool {
        guard !isClosed else { return false }
        if closing { isClosed = true }
        if isDelivering {
            pending.append(item())
            return false
        }
        isDelivering = true
        return true
    }

    /// The deliverer is done with its item: what it does next.
    mutating func next() -> Step {
        if !pending.isEmpty { return .deliver(pending.removeFirst()) }
        isDelivering = false
        guard isClosed, !isReleased else { return .idle }
        isReleased = true
        return .over
    }

    /// Closes the line: the items waiting are dropped (returned, to be released outside
    /// the lock), and nothing is taken from now on. `over` is true if nobody is delivering
    /// and the target was not let go yet: the caller then lets it go itself (else the
    /// deliverer does, at its next step, or did already).
    mutating func close() -> (over: Bool, dropped: [Item]) {
        isClosed = true
        defer { pending.removeAll() }
        let over = !isDelivering && !isReleased
        if over { isReleased = true }
        return (over, pending)
    }
}

extension LockedState {
    /// Submits an item to the line kept here (see `DeliveryLine.enter(closing:orQueue:)`):
    /// `true` if the caller is to deliver it now, and then `drain`.
    func enter<Item>(closing: Bool = false, orQueue item: @autoclosure () -> Item) -> Bool
    where State == DeliveryLine<Item> {
        withLock { $0.enter(closing: closing, orQueue: item()) }
    }

    /// As the deliverer: hands what waits to `hand`, until the line is idle, or over (then
    /// `release` lets the target go).
    func drain<Item>(hand: (Item) -> Void, release: () -> Void) where State == DeliveryLine<Item> {
        while true {
            switch withLock({ $0.next() }) {
            case .deliver(let item): hand(item)
            case .idle: return
            case .over: return release()
            }
        }
    }

    /// Delivers `item` through the line kept here: in place if nobody else is delivering,
    /// then whatever was submitted meanwhile; else leaves it to the thread that is.
    func deliver<Item>(_ item: Item, closing: Bool = false, hand: (Item) -> Void, release: () -> Void)
    where State == DeliveryLine<Item> {
        guard enter(closing: closing, orQueue: item) else { return }
        hand(item)
        drain(hand: hand, release: release)
    }

    /// Closes the line kept here: items waiting or submitted later are dropped, and the
    /// target is let go (by `release` now, or by the thread delivering, after its item).
    func close<Item>(release: () -> Void) where State == DeliveryLine<Item> {
        let (over, dropped) = withLock { $0.close() }
        withExtendedLifetime(dropped) {}
        if over { release() }
    }
}
