/// A `ReplaySubject` that can only deliver elements: it never completes or fails.
public final class ReplayRelay<Element>: ObservableType, Sendable {
    @usableFromInline let subject: ReplaySubject<Element>

    private init(subject: ReplaySubject<Element>) {
        self.subject = subject
    }

    /// A relay that replays at most the last `bufferSize` elements to each new observer
    /// (nothing for 0 or less).
    public static func create(bufferSize: Int) -> ReplayRelay<Element> {
        ReplayRelay(subject: ReplaySubject.create(bufferSize: bufferSize))
    }

    /// A relay that replays every element it ever accepted to each new observer (RxSwift's
    /// name; same as `createUnbounded()`).
    public static func createUnbound() -> ReplayRelay<Element> {
        ReplayRelay(subject: ReplaySubject.createUnbounded())
    }

    /// A relay that replays every element it ever accepted to each new observer.
    ///
    /// The buffer grows without bound: use it only for sequences known to stay small.
    public static func createUnbounded() -> ReplayRelay<Element> {
        createUnbound()
    }

    /// Buffers `event` and delivers it to the observers.
    @inlinable
    public func accept(_ event: Element) {
        subject.onNext(event)
    }

    /// Subscribes `observer`: it receives the buffered elements, then every accepted one.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an observable.
    public func asObservable() -> Observable<Element> {
        subject.asObservable()
    }
}
