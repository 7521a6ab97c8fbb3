/// A subject that holds a current value: each new observer receives it at once, then
/// every later event.
///
/// After a terminal event, new observers get just that terminal event and `value()`
/// throws the error (or keeps returning the last value after `completed`). After
/// `dispose()`, subscribing fails with `RxError.disposed`, `value()` throws it, and events
/// are ignored.
///
/// ```swift
/// let subject = BehaviorSubject(value: 0)
/// _ = subject.subscribe(onNext: { print($0) })  // prints 0
/// subject.onNext(1)                             // prints 1
/// ```
public final class BehaviorSubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    @unchecked Sendable
{
    // Sendable: all mutable state is in `state`, behind the lock.

    /// The observer side of this subject: the subject itself (`asObserver()` returns it).
    public typealias SubjectObserverType = BehaviorSubject<Element>

    @usableFromInline
    struct State {
        @usableFromInline var value: Element
        @usableFromInline var observers = CatchUpObservers<Element>()
        @usableFromInline var stopEvent: Event<Element>?
        @usableFromInline var isDisposed = false

        @inlinable init(value: Element) { self.value = value }
    }

    @usableFromInline let state: LockedState<State>

    /// Creates a subject whose current value is `value` until the first element arrives.
    @inlinable
    public init(value: Element) {
        state = LockedState(State(value: value))
        super.init()
    }

    /// Whether the subject has any observers.
    public var hasObservers: Bool { state.withLock { $0.observers.count > 0 } }

    /// Whether the subject has been disposed.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// The current value.
    ///
    /// - Throws: The subject's error if it failed, `RxError.disposed` if it was disposed.
    public func value() throws -> Element {
        let current = state.withLock { state -> Result<Element, Swift.Error> in
            if state.isDisposed { return .failure(RxError.disposed(object: self)) }
            if let error = state.stopEvent?.error { return .failure(error) }
            return .success(state.value)
        }
        return try current.get()
    }

    /// The current value whatever the subject's state (for `BehaviorRelay`, whose subject
    /// can neither fail nor be disposed).
    @usableFromInline var currentValue: Element { state.withLock { $0.value } }

    /// Makes `element` the current value and delivers it, or delivers a terminal event.
    @inlinable
    public func on(_ event: Event<Element>) {
        let observers = state.withLock { state -> ObserverBag<Element>? in
            guard !state.isDisposed, state.stopEvent == nil else { return nil }
            switch event {
            case .next(let element):
                state.value = element
                return state.observers.dispatch(event)
            case .error, .completed:
                state.stopEvent = event
                return state.observers.dispatchTerminal(event)
            }
        }
        observers?.on(event)
    }

    @usableFromInline
    enum Outcome {
        case subscribed(CatchUpSubscription, Element)
        case stopped(Event<Element>)
        case disposed
    }

    @inlinable
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        let subscription = CatchUpSubscription(owner: self)
        let outcome = state.withLock { state -> Outcome in
            if state.isDisposed { return .disposed }
            if let stopEvent = state.stopEvent { return .stopped(stopEvent) }
            state.observers.beginCatchUp(subscription, observer)
            return .subscribed(subscription, state.value)
        }
        switch outcome {
        case .subscribed(let subscription, let value):
            observer.on(.next(value))
            state.finishCatchUp(subscription, observer: observer, observers: \.observers)
            return subscription
        case .stopped(let event):
            observer.on(event)
        case .disposed:
            observer.on(.error(RxError.disposed(object: self)))
        }
        return Disposables.create()
    }

    /// The subject as an observer.
    public func asObserver() -> BehaviorSubject<Element> { self }

    /// Disposes the subject: observers are dropped, later events ignored.
    public func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.observers.removeAll()
            state.stopEvent = nil
        }
    }
}

extension BehaviorSubject: CatchUpUnsubscribing {
    @usableFromInline
    func unsubscribe(_ subscription: CatchUpSubscription) {
        state.withLock { _ = $0.observers.remove(subscription) }
    }
}
