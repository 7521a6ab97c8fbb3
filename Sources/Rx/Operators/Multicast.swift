extension ObservableType {
    /// A connectable observable that, once connected, subscribes `subject` to this
    /// sequence and shares it with every observer.
    ///
    /// The same subject serves every connection: after the source terminates, new
    /// observers get whatever the subject gives to late subscribers.
    public func multicast<Subject: SubjectType>(_ subject: Subject) -> ConnectableObservable<Subject.Element>
    where Subject.Observer.Element == Element {
        ConnectableObservableAdapter(source: asObservable(), makeSubject: multicastConstant(subject))
    }

    /// A connectable observable that shares this sequence through a subject made by
    /// `makeSubject`, a new one for each connection.
    ///
    /// The subject is dropped when the connection is disposed or the source terminates,
    /// so the next connection starts afresh.
    public func multicast<Subject: SubjectType>(makeSubject: @escaping @Sendable () -> Subject)
        -> ConnectableObservable<Subject.Element> where Subject.Observer.Element == Element
    {
        ConnectableObservableAdapter(source: asObservable(), makeSubject: makeSubject)
    }

    /// For each subscription: makes a subject with `subjectSelector`, shares this sequence
    /// through it inside `selector`, and delivers what `selector` returns.
    ///
    /// An error thrown by either closure ends the sequence with that error.
    public func multicast<Subject: SubjectType, Result>(
        _ subjectSelector: @escaping @Sendable () throws -> Subject,
        selector: @escaping @Sendable (Observable<Subject.Element>) throws -> Observable<Result>
    ) -> Observable<Result> where Subject.Observer.Element == Element {
        MulticastSelectorProducer(source: asObservable(), subjectSelector: subjectSelector, selector: selector)
    }

    /// A connectable observable that shares one subscription to this sequence: observers
    /// get the elements that arrive after they subscribed.
    public func publish() -> ConnectableObservable<Element> {
        multicast(makeSubject: { PublishSubject() })
    }

    /// A connectable observable that shares one subscription to this sequence and replays
    /// the last `bufferSize` elements to each new observer (nothing for 0 or less).
    public func replay(_ bufferSize: Int) -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject.create(bufferSize: bufferSize) })
    }

    /// A connectable observable that shares one subscription to this sequence and replays
    /// every element to each new observer.
    public func replayAll() -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject.createUnbounded() })
    }
}

/// The connectable observable behind `multicast`, `publish` and `replay`: observers
/// subscribe to the current subject; `connect()` subscribes that subject to the source.
final class ConnectableObservableAdapter<Subject: SubjectType>: ConnectableObservable<Subject.Element>,
    @unchecked Sendable
{
    // Sendable: mutable state is in `state`, behind the lock.
    typealias SourceElement = Subject.Observer.Element

    struct State {
        var subject: Subject?
        /// Tells subjects apart (a `SubjectType` need not be a class).
        var subjectGeneration = 0
        var connection: MulticastConnection<Subject>?
    }

    private let source: Observable<SourceElement>
    private let makeSubject: @Sendable () -> Subject
    private let state = LockedState(State())

    init(source: Observable<SourceElement>, makeSubject: @escaping @Sendable () -> Subject) {
        self.source = source
        self.makeSubject = makeSubject
        super.init()
    }

    /// The current subject, made if there is none. `makeSubject` is user code, so it runs
    /// outside the lock; if two threads race, the first subject installed wins.
    private func currentSubject() -> (subject: Subject, generation: Int) {
        if let current = state.withLock({ state in state.subject.map { ($0, state.subjectGeneration) } }) {
            return current
        }
        let candidate = makeSubject()
        return state.withLock { state in
            if let existing = state.subject { return (existing, state.subjectGeneration) }
            state.subject = candidate
            state.subjectGeneration += 1
            return (candidate, state.subjectGeneration)
        }
    }

    override func run(_ observer: AnyObserver<Subject.Element>) -> Disposable {
        currentSubject().subject.subscribe(observer)
    }

    private enum ConnectOutcome {
        case existing(MulticastConnection<Subject>)
        case created(MulticastConnection<Subject>)
        case retry
    }

    override func connect() -> Disposable {
        while true {
            let (subject, generation) = currentSubject()
            let subjectObserver = AnyObserver(subject.asObserver())
            let outcome = state.withLock { state -> ConnectOutcome in
                if let connection = state.connection { return .existing(connection) }
                // The subject was replaced since we read it (a connection ended meanwhile).
                guard state.subject != nil, state.subjectGeneration == generation else { return .retry }
                let connection = MulticastConnection(parent: self, subjectObserver: subjectObserver)
                state.connection = connection
                return .created(connection)
            }
            switch outcome {
            case .existing(let connection):
                return connection
            case .created(let connection):
                connection.attach(source.subscribe(AnyObserver { connection.on($0) }))
                return connection
            case .retry:
                continue
            }
        }
    }

    /// Forgets `connection` (and its subject, so the next connection makes a new one).
    func connectionEnded(_ connection: MulticastConnection<Subject>) {
        state.withLock { state in
            guard state.connection === connection else { return }
            state.connection = nil
            state.subject = nil
        }
    }
}

/// One connection of a connectable observable to its source: forwards the source's events
/// to the subject. Disposing it, or a terminal event, disconnects.
final class MulticastConnection<Subject: SubjectType>: SubscriptionCore, @unchecked Sendable {
    // Sendable: immutable but for the disposal state in `SubscriptionCore`.
    private let parent: ConnectableObservableAdapter<Subject>
    private let subjectObserver: AnyObserver<Subject.Observer.Element>

    init(parent: ConnectableObservableAdapter<Subject>, subjectObserver: AnyObserver<Subject.Observer.Element>) {
        self.parent = parent
        self.subjectObserver = subjectObserver
        super.init()
    }

    func on(_ event: Event<Subject.Observer.Element>) {
        guard !isDisposed else { return }
        // Disconnect first, so that an observer resubscribing from its terminal handler
        // starts a fresh connection.
        if event.isStopEvent { dispose() }
        subjectObserver.on(event)
    }

    override func didDispose() {
        parent.connectionEnded(self)
    }
}

/// A factory that always returns `value` (the subject of `multicast(_:)`). A function of
/// its own so that the closure captures no `SubjectType` conformance.
private func multicastConstant<Value>(_ value: Value) -> @Sendable () -> Value {
    let box = UncheckedSendable(value)
    return { box.value }
}

/// `multicast(_:selector:)`: each subscription makes a subject, shares the source through
/// it inside the selector, and connects.
final class MulticastSelectorProducer<Subject: SubjectType, Result>: Observable<Result>, @unchecked Sendable {
    // Sendable: immutable; the closures are `@Sendable`.
    private let source: Observable<Subject.Observer.Element>
    private let subjectSelector: @Sendable () throws -> Subject
    private let selector: @Sendable (Observable<Subject.Element>) throws -> Observable<Result>

    init(
        source: Observable<Subject.Observer.Element>, subjectSelector: @escaping @Sendable () throws -> Subject,
        selector: @escaping @Sendable (Observable<Subject.Element>) throws -> Observable<Result>
    ) {
        self.source = source
        self.subjectSelector = subjectSelector
        self.selector = selector
        super.init()
    }

    override func run(_ observer: AnyObserver<Result>) -> Disposable {
        let sink = MulticastSelectorSink<Result>(downstream: observer)
        do {
            let subject = try subjectSelector()
            let connectable = ConnectableObservableAdapter(source: source, makeSubject: multicastConstant(subject))
            let result = try selector(connectable.asObservable())
            let subscription = result.subscribe(AnyObserver { sink.on($0) })
            let connection = connectable.connect()
            sink.attach(Disposables.create(subscription, connection))
        } catch {
            sink.forwardTerminal(.error(error))
        }
        return sink
    }
}

/// The per-subscription sink of `multicast(_:selector:)`.
final class MulticastSelectorSink<Element>: Sink<Element>, @unchecked Sendable {
    func on(_ event: Event<Element>) {
        forwardEvent(event)
    }
}
