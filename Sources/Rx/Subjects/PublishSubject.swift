/// A subject that delivers to its current observers the events that happen after they
/// subscribed.
///
/// After a terminal event, new subscribers get just that terminal event. After
/// `dispose()`, subscribing fails with `RxError.disposed` and events are ignored.
public final class PublishSubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    @unchecked Sendable
{
    // Sendable: all mutable state is in `state`, behind the lock.

    /// The observer side of this subject: the subject itself (`asObserver()` returns it).
    public typealias SubjectObserverType = PublishSubject<Element>

    @usableFromInline
    struct State {
        @usableFromInline var observers = ObserverBag<Element>()
        @usableFromInline var stopEvent: Event<Element>?
        @usableFromInline var isDisposed = false

        @inlinable init() {}
    }

    @usableFromInline let state = LockedState(State())

    /// Creates a subject with no observers.
    @inlinable
    public override init() {
        super.init()
    }

    /// Whether the subject has any observers.
    public var hasObservers: Bool { state.withLock { $0.observers.count > 0 } }

    /// Whether the subject has been disposed.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// Delivers `event` to every current observer.
    @inlinable
    public func on(_ event: Event<Element>) {
        let observers = state.withLock { state -> ObserverBag<Element>? in
            guard !state.isDisposed, state.stopEvent == nil else { return nil }
            if event.isStopEvent {
                state.stopEvent = event
                let observers = state.observers
                state.observers.removeAll()
                return observers
            }
            return state.observers
        }
        observers?.on(event)
    }

    private enum Outcome {
        case subscribed(Int)
        case stopped(Event<Element>)
        case disposed
    }

    @usableFromInline
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        let outcome = state.withLock { state -> Outcome in
            if state.isDisposed { return .disposed }
            if let stopEvent = state.stopEvent { return .stopped(stopEvent) }
            return .subscribed(state.observers.insert(observer))
        }
        switch outcome {
        case .subscribed(let key):
            return SubjectSubscription(owner: self, key: key)
        case .stopped(let event):
            observer.on(event)
        case .disposed:
            observer.on(.error(RxError.disposed(object: self)))
        }
        return Disposables.create()
    }

    @usableFromInline
    func unsubscribe(key: Int) {
        state.withLock { _ = $0.observers.remove(key) }
    }

    /// The subject as an observer.
    public func asObserver() -> PublishSubject<Element> { self }

    /// Disposes the subject: observers are dropped, later events ignored.
    public func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.observers.removeAll()
            state.stopEvent = nil
        }
    }
}

/// Something observers can unsubscribe from by key (subjects).
@usableFromInline
protocol KeyedUnsubscribing: AnyObject, Sendable {
    func unsubscribe(key: Int)
}

extension PublishSubject: KeyedUnsubscribing {}

/// One observer's subscription to a subject; disposing it removes the observer.
@usableFromInline
final class SubjectSubscription: SubscriptionBase, @unchecked Sendable {
    // Sendable: the owner is set once; the key is taken atomically. The owner is weak, as
    // in RxSwift: a subscription never disposed must not keep a dropped subject and its
    // observers alive.
    @usableFromInline weak var owner: (any KeyedUnsubscribing)?
    /// The observer's key in the subject, or -1 once disposed (one word for both keeps
    /// the object in a smaller allocation).
    @usableFromInline let key: AtomicInt

    @inlinable
    init(owner: KeyedUnsubscribing, key: Int) {
        self.owner = owner
        self.key = AtomicInt(key)
        super.init()
    }

    @usableFromInline
    override func dispose() {
        let key = self.key.exchange(-1)
        if key >= 0 {
            owner?.unsubscribe(key: key)
        }
    }
}
