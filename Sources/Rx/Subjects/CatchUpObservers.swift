/// The observers of a subject that replays something to each new observer
/// (`BehaviorSubject`, `ReplaySubject`, `share(replay: 1)`).
///
/// Replayed elements are delivered outside the owner's lock, so a live event may arrive
/// on another thread while a new observer is still receiving its replay. Such an observer
/// is *catching up*: it is kept out of the bag, and live events are queued for it; the
/// subscribing thread delivers them after the replay and moves the observer into the bag
/// once its queue is empty. So each observer sees replay then live events, in order and
/// never concurrently, without any lock held while it is called. Live delivery pays one
/// emptiness check for this when nobody is catching up.
@usableFromInline
struct CatchUpObservers<Element> {
    @usableFromInline var bag = ObserverBag<Element>()
    @usableFromInline var catchingUp: [CatchUpEntry<Element>] = []
    /// Catching-up observers that have not received a terminal event.
    @usableFromInline var liveCatchingUp = 0

    @inlinable init() {}

    /// The number of observers still subscribed to live events.
    @inlinable var count: Int { bag.count + liveCatchingUp }

    /// Registers an observer that receives live events straight away.
    @inlinable
    mutating func insert(_ subscription: CatchUpSubscription, _ observer: AnyObserver<Element>) {
        subscription.key = bag.insert(observer)
    }

    /// Registers an observer that is about to receive a replay: live events are queued
    /// for it until `nextCatchUpBatch` moves it into the bag.
    @inlinable
    mutating func beginCatchUp(_ subscription: CatchUpSubscription, _ observer: AnyObserver<Element>) {
        subscription.key = -1
        catchingUp.append(CatchUpEntry(id: ObjectIdentifier(subscription), observer: observer))
        liveCatchingUp += 1
    }

    /// Queues `element` for catching-up observers; returns the observers to deliver it to.
    @inlinable
    mutating func dispatch(_ event: Event<Element>) -> ObserverBag<Element> {
        if liveCatchingUp > 0 {
            for index in catchingUp.indices where !catchingUp[index].isFinished {
                catchingUp[index].pending.append(event)
            }
        }
        return bag
    }

    /// Queues a terminal event for catching-up observers and empties the bag; returns the
    /// observers to deliver it to.
    @inlinable
    mutating func dispatchTerminal(_ event: Event<Element>) -> ObserverBag<Element> {
        if liveCatchingUp > 0 {
            for index in catchingUp.indices where !catchingUp[index].isFinished {
                catchingUp[index].pending.append(event)
                catchingUp[index].isFinished = true
            }
            liveCatchingUp = 0
        }
        let observers = bag
        bag.removeAll()
        return observers
    }

    /// The events queued for `subscription` since its last batch, or `nil` when it has
    /// caught up (it is then in the bag) or is gone (unsubscribed, or its terminal event
    /// was in the previous batch).
    @inlinable
    mutating func nextCatchUpBatch(_ subscription: CatchUpSubscription) -> [Event<Element>]? {
        let id = ObjectIdentifier(subscription)
        guard let index = catchingUp.firstIndex(where: { $0.id == id }) else { return nil }
        if catchingUp[index].pending.isEmpty {
            let entry = catchingUp.remove(at: index)
            if !entry.isFinished {
                liveCatchingUp -= 1
                subscription.key = bag.insert(entry.observer)
            }
            return nil
        }
        let batch = catchingUp[index].pending
        if catchingUp[index].isFinished {
            catchingUp.remove(at: index)
        } else {
            catchingUp[index].pending.removeAll()
        }
        return batch
    }

    /// Unregisters `subscription`; returns whether it was still subscribed to live events.
    @inlinable
    @discardableResult
    mutating func remove(_ subscription: CatchUpSubscription) -> Bool {
        if subscription.key >= 0 {
            return bag.remove(subscription.key)
        }
        let id = ObjectIdentifier(subscription)
        guard let index = catchingUp.firstIndex(where: { $0.id == id }) else { return false }
        let entry = catchingUp.remove(at: index)
        if entry.isFinished { return false }
        liveCatchingUp -= 1
        return true
    }

    /// Unregisters everyone.
    @inlinable
    mutating func removeAll() {
        bag.removeAll()
        catchingUp.removeAll()
        liveCatchingUp = 0
    }
}

/// An observer receiving its replay, with the live events queued behind it.
@usableFromInline
struct CatchUpEntry<Element> {
    @usableFromInline let id: ObjectIdentifier
    @usableFromInline let observer: AnyObserver<Element>
    @usableFromInline var pending: [Event<Element>] = []
    /// Whether a terminal event is queued (the observer no longer counts as subscribed).
    @usableFromInline var isFinished = false

    @inlinable
    init(id: ObjectIdentifier, observer: AnyObserver<Element>) {
        self.id = id
        self.observer = observer
    }
}

/// Something a `CatchUpSubscription` unsubscribes from.
@usableFromInline
protocol CatchUpUnsubscribing: AnyObject, Sendable {
    func unsubscribe(_ subscription: CatchUpSubscription)
}

/// One observer's subscription to a subject; disposing it unsubscribes.
///
/// The owner is held weakly: the observer's sink holds this subscription and the owner
/// holds the observer, so a strong reference would keep a subject and the observers of
/// never-disposed subscriptions alive forever. With it weak, they all go with the subject.
@usableFromInline
final class CatchUpSubscription: RxResource, Disposable, @unchecked Sendable {
    // Sendable: `key` is only touched under the owner's lock; `disposed` is atomic; `owner`
    // is a weak reference, which Swift reads and writes atomically.
    @usableFromInline weak var owner: CatchUpUnsubscribing?
    /// The observer's key in the owner's bag, or -1 while it catches up.
    @usableFromInline var key = -1
    @usableFromInline let disposed = AtomicInt(0)

    @inlinable
    init(owner: CatchUpUnsubscribing) {
        self.owner = owner
        super.init()
    }

    @inlinable var isDisposed: Bool { disposed.load() != 0 }

    @usableFromInline
    func dispose() {
        if disposed.exchange(1) == 0 {
            owner?.unsubscribe(self)
        }
    }
}

extension LockedState {
    /// Delivers to a catching-up observer the live events queued behind its replay, batch
    /// by batch outside the lock, until it has caught up (or was unsubscribed).
    @inlinable
    func finishCatchUp<Element>(
        _ subscription: CatchUpSubscription, observer: AnyObserver<Element>,
        observers: WritableKeyPath<State, CatchUpObservers<Element>>
    ) {
        while let batch = withLock({ $0[keyPath: observers].nextCatchUpBatch(subscription) }) {
            for event in batch {
                if subscription.isDisposed { return }
                observer.on(event)
            }
        }
    }
}
