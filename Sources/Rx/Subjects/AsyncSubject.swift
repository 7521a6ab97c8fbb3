/// A subject that delivers only its last element, and only when it completes.
///
/// On `completed`, observers get the last element (if there was one) and `completed`; on
/// `error`, just the error. Observers that subscribe after that get the same ending.
///
/// ```swift
/// let subject = AsyncSubject<Int>()
/// _ = subject.subscribe(onNext: { print($0) })
/// subject.onNext(1); subject.onNext(2)
/// subject.onCompleted()  // prints 2
/// ```
public final class AsyncSubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    @unchecked Sendable
{
    // Sendable: all mutable state is in `state`, behind the lock.

    /// The observer side of this subject: the subject itself (`asObserver()` returns it).
    public typealias SubjectObserverType = AsyncSubject<Element>

    @usableFromInline
    struct State {
        @usableFromInline var observers = CatchUpObservers<Element>()
        @usableFromInline var lastElement: Element?
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

    /// Whether the subject has been disposed. (`dispose()` is an addition to RxSwift's
    /// `AsyncSubject`, for symmetry with the other subjects.)
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// Remembers an element, or delivers the ending to every observer.
    @inlinable
    public func on(_ event: Event<Element>) {
        let delivery = state.withLock { state -> (ObserverBag<Element>, Element?)? in
            guard !state.isDisposed, state.stopEvent == nil else { return nil }
            switch event {
            case .next(let element):
                state.lastElement = element
                return nil
            case .error, .completed:
                state.stopEvent = event
                return (state.observers.dispatchTerminal(event), event.isCompleted ? state.lastElement : nil)
            }
        }
        guard let (observers, lastElement) = delivery else { return }
        if let lastElement {
            observers.on(.next(lastElement))
        }
        observers.on(event)
    }

    @usableFromInline
    enum Outcome {
        case subscribed
        case stopped(Element?, Event<Element>)
        case disposed
    }

    @inlinable
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        let subscription = CatchUpSubscription(owner: self)
        let outcome = state.withLock { state -> Outcome in
            if state.isDisposed { return .disposed }
            if let stopEvent = state.stopEvent {
                return .stopped(stopEvent.isCompleted ? state.lastElement : nil, stopEvent)
            }
            state.observers.insert(subscription, observer)
            return .subscribed
        }
        switch outcome {
        case .subscribed:
            return subscription
        case .stopped(let lastElement, let event):
            if let lastElement {
                observer.on(.next(lastElement))
            }
            observer.on(event)
        case .disposed:
            observer.on(.error(RxError.disposed(object: self)))
        }
        return Disposables.create()
    }

    /// The subject as an observer.
    public func asObserver() -> AsyncSubject<Element> { self }

    /// Disposes the subject: observers and the last element are dropped, later events
    /// ignored, and new subscribers fail with `RxError.disposed`.
    public func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.observers.removeAll()
            state.lastElement = nil
            state.stopEvent = nil
        }
    }
}

extension AsyncSubject: CatchUpUnsubscribing {
    @usableFromInline
    func unsubscribe(_ subscription: CatchUpSubscription) {
        state.withLock { _ = $0.observers.remove(subscription) }
    }
}
