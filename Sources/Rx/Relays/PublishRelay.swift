/// A `PublishSubject` that can only deliver elements: it never completes or fails.
///
/// Relays suit state and UI streams, where a terminal event would be a bug: `accept(_:)`
/// is the only input.
public final class PublishRelay<Element>: ObservableType, Sendable {
    @usableFromInline let subject: PublishSubject<Element>

    /// Creates a relay with no observers.
    @inlinable
    public init() {
        subject = PublishSubject()
    }

    /// Delivers `event` to the current observers.
    @inlinable
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// Subscribes `observer` to the elements accepted from now on.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable.
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}
