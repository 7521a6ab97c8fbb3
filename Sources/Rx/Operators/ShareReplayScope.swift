/// How long the subject behind `share(replay:scope:)` lives.
public enum SubjectLifetimeScope: Sendable {
    /// Each connection to the source has its own subject: when the last observer leaves,
    /// or the source terminates, the replay buffer is forgotten and the next observer
    /// subscribes to the source anew. The recommended default; `retry` and `repeat`
    /// downstream work as expected.
    case whileConnected

    /// One subject serves every connection: the replay buffer outlives the observers, and
    /// once the source has terminated, new observers get the buffer and the terminal event
    /// without a new subscription to the source.
    case forever
}

extension ObservableType {
    /// Shares one subscription to this sequence among all observers, replaying the last
    /// `replay` elements to each new one.
    ///
    /// The source is subscribed when the first observer arrives and disposed when the
    /// last one leaves. `share(replay: 1)` (the common case) has a dedicated
    /// implementation with one lock and no intermediate subject. A negative `replay`
    /// replays nothing.
    ///
    /// - Parameters:
    ///   - replay: The number of elements to replay to new observers.
    ///   - scope: Whether the replay buffer lives while connected or forever.
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        switch scope {
        case .forever:
            if replay <= 0 {
                return multicast(PublishSubject()).refCount()
            }
            return multicast(ReplaySubject.create(bufferSize: replay)).refCount()
        case .whileConnected:
            if replay <= 0 {
                return ShareWhileConnected(source: asObservable(), replaysLatest: false)
            }
            if replay == 1 {
                return ShareWhileConnected(source: asObservable(), replaysLatest: true)
            }
            return multicast(makeSubject: { ReplaySubject.create(bufferSize: replay) }).refCount()
        }
    }
}

/// `share(replay: 0 or 1, scope: .whileConnected)`: the observers, the latest element and
/// the connection in one locked state, instead of a subject behind `refCount`.
final class ShareWhileConnected<Element>: Observable<Element>, CatchUpUnsubscribing, @unchecked Sendable {
    // Sendable: mutable state is in `state`, behind the lock.
    struct State {
        var connection: ShareConnection<Element>?
        var observers = CatchUpObservers<Element>()
        var latest: Element?
    }

    private let source: Observable<Element>
    private let replaysLatest: Bool
    private let state = LockedState(State())

    init(source: Observable<Element>, replaysLatest: Bool) {
        self.source = source
        self.replaysLatest = replaysLatest
        super.init()
    }

    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        let subscription = CatchUpSubscription(owner: self)
        let (replay, newConnection) = state.withLock { state -> (Element?, ShareConnection<Element>?) in
            if let latest = state.latest {
                state.observers.beginCatchUp(subscription, observer)
                return (latest, nil)
            }
            state.observers.insert(subscription, observer)
            if state.connection != nil { return (nil, nil) }
            let connection = ShareConnection(parent: self)
            state.connection = connection
            return (nil, connection)
        }
        if let replay {
            observer.on(.next(replay))
            state.finishCatchUp(subscription, observer: observer, observers: \.observers)
        }
        if let newConnection {
            newConnection.attach(source.run(AnyObserver { newConnection.on($0) }))
        }
        return subscription
    }

    /// Delivers an event of `connection`'s source, if it is still the current connection.
    func deliver(_ event: Event<Element>, from connection: ShareConnection<Element>) {
        switch event {
        case .next(let element):
            let observers = state.withLock { state -> ObserverBag<Element>? in
                guard state.connection === connection else { return nil }
                if replaysLatest { state.latest = element }
                return state.observers.dispatch(event)
            }
            observers?.on(event)
        case .error, .completed:
            let observers = state.withLock { state -> ObserverBag<Element>? in
                guard state.connection === connection else { return nil }
                state.connection = nil
                state.latest = nil
                return state.observers.dispatchTerminal(event)
            }
            guard let observers else { return }
            // The source is done: release it before observers may resubscribe (which
            // starts a new connection).
            connection.dispose()
            observers.on(event)
        }
    }

    func unsubscribe(_ subscription: CatchUpSubscription) {
        let connection = state.withLock { state -> ShareConnection<Element>? in
            guard state.observers.remove(subscription), state.observers.count == 0 else { return nil }
            defer {
                state.connection = nil
                state.latest = nil
            }
            return state.connection
        }
        connection?.dispose()
    }
}

/// One subscription of a `ShareWhileConnected` to its source.
final class ShareConnection<Element>: SubscriptionCore, @unchecked Sendable {
    // Sendable: immutable but for the disposal state in `SubscriptionCore`.
    private let parent: ShareWhileConnected<Element>

    init(parent: ShareWhileConnected<Element>) {
        self.parent = parent
        super.init()
    }

    func on(_ event: Event<Element>) {
        guard !isDisposed else { return }
        parent.deliver(event, from: self)
    }
}
