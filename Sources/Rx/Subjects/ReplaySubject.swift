/// A subject that replays the latest elements (up to a buffer size, or all of them) to
/// each new observer, then delivers the live events.
///
/// After a terminal event, new observers get the buffered elements and then the terminal
/// event. After `dispose()`, subscribing fails with `RxError.disposed`, the buffer is
/// released and events are ignored.
///
/// ```swift
/// let subject = ReplaySubject<Int>.create(bufferSize: 2)
/// subject.onNext(1); subject.onNext(2); subject.onNext(3)
/// _ = subject.subscribe(onNext: { print($0) })  // prints 2, 3
/// ```
public final class ReplaySubject<Element>: Observable<Element>, SubjectType, ObserverType, Cancelable,
    @unchecked Sendable
{
    // Sendable: all mutable state is in `state`, behind the lock.

    /// The observer side of this subject: the subject itself (`asObserver()` returns it).
    public typealias SubjectObserverType = ReplaySubject<Element>

    @usableFromInline
    struct State {
        @usableFromInline var buffer: ReplaySubjectBuffer<Element>
        @usableFromInline var observers = CatchUpObservers<Element>()
        @usableFromInline var stopEvent: Event<Element>?
        @usableFromInline var isDisposed = false

        @inlinable init(buffer: ReplaySubjectBuffer<Element>) { self.buffer = buffer }
    }

    @usableFromInline let state: LockedState<State>

    @usableFromInline
    init(limit: Int?) {
        state = LockedState(State(buffer: ReplaySubjectBuffer(limit: limit)))
        super.init()
    }

    /// A subject that replays at most the last `bufferSize` elements to each new observer.
    ///
    /// A `bufferSize` of 0 or less replays nothing (RxSwift would hang on a negative size).
    public static func create(bufferSize: Int) -> ReplaySubject<Element> {
        ReplaySubject(limit: Swift.max(bufferSize, 0))
    }

    /// A subject that replays every element it ever received to each new observer.
    ///
    /// The buffer grows without bound: use it only for sequences known to stay small.
    public static func createUnbounded() -> ReplaySubject<Element> {
        ReplaySubject(limit: nil)
    }

    /// Whether the subject has any observers.
    public var hasObservers: Bool { state.withLock { $0.observers.count > 0 } }

    /// Whether the subject has been disposed.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// Buffers and delivers `event` (an element), or delivers a terminal event.
    @inlinable
    public func on(_ event: Event<Element>) {
        let observers = state.withLock { state -> ObserverBag<Element>? in
            guard !state.isDisposed, state.stopEvent == nil else { return nil }
            switch event {
            case .next(let element):
                state.buffer.append(element)
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
        case subscribed([Element])
        case stopped([Element], Event<Element>)
        case disposed
    }

    @inlinable
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        let subscription = CatchUpSubscription(owner: self)
        let outcome = state.withLock { state -> Outcome in
            if state.isDisposed { return .disposed }
            if let stopEvent = state.stopEvent { return .stopped(state.buffer.elements, stopEvent) }
            let replay = state.buffer.elements
            if replay.isEmpty {
                state.observers.insert(subscription, observer)
            } else {
                state.observers.beginCatchUp(subscription, observer)
            }
            return .subscribed(replay)
        }
        switch outcome {
        case .subscribed(let replay):
            guard !replay.isEmpty else { return subscription }
            for element in replay {
                if subscription.isDisposed { return subscription }
                observer.on(.next(element))
            }
            state.finishCatchUp(subscription, observer: observer, observers: \.observers)
            return subscription
        case .stopped(let replay, let event):
            for element in replay {
                observer.on(.next(element))
            }
            observer.on(event)
        case .disposed:
            observer.on(.error(RxError.disposed(object: self)))
        }
        return Disposables.create()
    }

    /// The subject as an observer.
    public func asObserver() -> ReplaySubject<Element> { self }

    /// Disposes the subject: observers and buffer are dropped, later events ignored.
    public func dispose() {
        state.withLock { state in
            state.isDisposed = true
            state.observers.removeAll()
            state.buffer.removeAll()
        }
    }
}

extension ReplaySubject: CatchUpUnsubscribing {
    @usableFromInline
    func unsubscribe(_ subscription: CatchUpSubscription) {
        state.withLock { _ = $0.observers.remove(subscription) }
    }
}

/// The elements a `ReplaySubject` replays: the last `limit` (a ring), or all (`nil`).
@usableFromInline
struct ReplaySubjectBuffer<Element> {
    @usableFromInline var storage: [Element] = []
    /// Index of the oldest element once a bounded buffer is full.
    @usableFromInline var head = 0
    @usableFromInline let limit: Int?

    @inlinable
    init(limit: Int?) {
        self.limit = limit
    }

    @inlinable
    mutating func append(_ element: Element) {
        guard let limit else {
            storage.append(element)
            return
        }
        if storage.count < limit {
            storage.append(element)
        } else if limit > 0 {
            storage[head] = element
            head += 1
            if head == limit { head = 0 }
        }
    }

    /// The buffered elements, oldest first.
    @inlinable
    var elements: [Element] {
        if head == 0 { return storage }
        return Array(storage[head...]) + storage[..<head]
    }

    @inlinable
    mutating func removeAll() {
        storage = []
        head = 0
    }
}
