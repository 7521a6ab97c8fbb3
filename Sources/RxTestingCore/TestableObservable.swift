import Rx

/// An observable for tests whose events are scripted in virtual time, and which records
/// when it was subscribed and unsubscribed.
public class TestableObservable<Element>: ObservableType, @unchecked Sendable {
    // Sendable: the subscription log is behind its lock, and subclasses keep their state
    // behind one of their own; the rest is immutable.

    /// The scripted events.
    public let recordedEvents: [Recorded<Event<Element>>]

    let scheduler: TestScheduler
    private let subscriptionLog = LockedState<[Subscription]>([])

    init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.scheduler = scheduler
        self.recordedEvents = recordedEvents
    }

    /// When the observable was subscribed and unsubscribed.
    public var subscriptions: [Subscription] { subscriptionLog.withLock { $0 } }

    /// Subscribes `observer`; implemented by the hot and cold variants.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        Disposables.create()
    }

    /// Records a subscription now; returns its index in the log.
    func logSubscription() -> Int {
        let now = scheduler.clock
        return subscriptionLog.withLock { log in
            log.append(Subscription(now))
            return log.count - 1
        }
    }

    /// Closes the subscription at `index` now.
    func logUnsubscription(at index: Int) {
        let now = scheduler.clock
        subscriptionLog.withLock { log in
            let start = log[index].subscribe
            log[index] = Subscription(start, now)
        }
    }

    /// Whether the subscription at `index` was closed.
    func isUnsubscribed(at index: Int) -> Bool {
        subscriptionLog.withLock { $0[index].unsubscribe != Int.max }
    }
}

/// A hot test observable: its events happen at absolute virtual times, whether or not
/// anyone is subscribed.
final class HotObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    /// The observers subscribed now, by the order they came in.
    private struct Observers {
        var byKey: [Int: AnyObserver<Element>] = [:]
        var nextKey = 0
    }

    private let observers = LockedState(Observers())

    override init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(scheduler: scheduler, recordedEvents: recordedEvents)
        for recorded in recordedEvents {
            let event = UncheckedSendable(recorded.value)
            scheduler.scheduleAt(recorded.time) { [weak self] in
                guard let self else { return }
                let current = self.observers.withLock { $0.byKey.sorted { $0.key < $1.key }.map(\.value) }
                for observer in current { observer.on(event.value) }
            }
        }
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let index = logSubscription()
        let key = observers.withLock { observers -> Int in
            let key = observers.nextKey
            observers.nextKey += 1
            observers.byKey[key] = AnyObserver(observer)
            return key
        }
        return Disposables.create { [weak self] in
            guard let self else { return }
            let removed = self.observers.withLock { $0.byKey.removeValue(forKey: key) } != nil
            if removed { self.logUnsubscription(at: index) }
        }
    }
}

/// A cold test observable: each subscription replays the events at times relative to
/// when it subscribed.
final class ColdObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let index = logSubscription()
        let target = AnyObserver(observer)
        let scheduled = CompositeDisposable()
        for recorded in recordedEvents {
            let event = UncheckedSendable(recorded.value)
            scheduled.insert(
                scheduler.scheduleRelativeVirtual((), dueTime: recorded.time) { _ in
                    target.on(event.value)
                    return Disposables.create()
                })
        }
        return Disposables.create { [weak self] in
            guard let self else { return }
            if !self.isUnsubscribed(at: index) { self.logUnsubscription(at: index) }
            scheduled.dispose()
        }
    }
}

/// Carries a value into a `@Sendable` closure that the test scheduler runs on the
/// thread that drives it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
