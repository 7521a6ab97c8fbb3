import Rx

/// An observable for tests whose events are scripted in virtual time, and which records
/// when it was subscribed and unsubscribed.
public class TestableObservable<Element>: ObservableType, @unchecked Sendable {
    // Sendable: mutable state is behind `lock`; subclasses keep to that.

    /// The scripted events.
    public let recordedEvents: [Recorded<Event<Element>>]

    let scheduler: TestScheduler
    let lock = NSLockShim()
    var subscriptionLog: [Subscription] = []

    init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.scheduler = scheduler
        self.recordedEvents = recordedEvents
    }

    /// When the observable was subscribed and unsubscribed.
    public var subscriptions: [Subscription] { lock.withLock { subscriptionLog } }

    /// Subscribes `observer`; implemented by the hot and cold variants.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        Disposables.create()
    }

    /// Records a subscription now; returns its index in the log.
    func logSubscription() -> Int {
        let now = scheduler.clock
        return lock.withLock {
            subscriptionLog.append(Subscription(now))
            return subscriptionLog.count - 1
        }
    }

    /// Closes the subscription at `index` now.
    func logUnsubscription(at index: Int) {
        let now = scheduler.clock
        lock.withLock {
            let start = subscriptionLog[index].subscribe
            subscriptionLog[index] = Subscription(start, now)
        }
    }
}

/// A hot test observable: its events happen at absolute virtual times, whether or not
/// anyone is subscribed.
final class HotObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    private var observers: [Int: AnyObserver<Element>] = [:]
    private var nextKey = 0

    override init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(scheduler: scheduler, recordedEvents: recordedEvents)
        for recorded in recordedEvents {
            let event = UncheckedSendable(recorded.value)
            scheduler.scheduleAt(recorded.time) { [weak self] in
                guard let self else { return }
                let current = self.lock.withLock { self.observers.sorted { $0.key < $1.key }.map(\.value) }
                for observer in current { observer.on(event.value) }
            }
        }
    }

    override func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let index = logSubscription()
        let key = lock.withLock { () -> Int in
            let key = nextKey
            nextKey += 1
            observers[key] = AnyObserver(observer)
            return key
        }
        return Disposables.create { [weak self] in
            guard let self else { return }
            let removed = self.lock.withLock { self.observers.removeValue(forKey: key) != nil }
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
            let closed = self.lock.withLock { self.subscriptionLog[index].unsubscribe != Int.max }
            if !closed { self.logUnsubscription(at: index) }
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
