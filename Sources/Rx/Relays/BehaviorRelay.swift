/// A `BehaviorSubject` that can only deliver elements: it holds a current value, never
/// completes or fails.
///
/// ```swift
/// let isLoading = BehaviorRelay(value: false)
/// isLoading.accept(true)
/// print(isLoading.value)  // true
/// ```
public final class BehaviorRelay<Element>: ObservableType, Sendable {
    @usableFromInline let subject: BehaviorSubject<Element>

    /// Creates a relay whose current value is `value`.
    @inlinable
    public init(value: Element) {
        subject = BehaviorSubject(value: value)
    }

    /// Makes `event` the current value and delivers it to the observers.
    @inlinable
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// The current value.
    public var value: Element {
        // The subject is private to the relay, so it can neither fail nor be disposed.
        subject.currentValue
    }

    /// Subscribes `observer`: it receives the current value, then every accepted one.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable.
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}
