extension ConnectableObservableType {
    /// An observable that connects to this connectable observable when its first observer
    /// subscribes and disconnects when the last one leaves (or the source terminates).
    public func refCount() -> Observable<Element> {
        RefCountProducer(source: self)
    }
}

/// The shared state of a `refCount()` observable.
final class RefCountProducer<Source: ConnectableObservableType>: Observable<Source.Element>, @unchecked Sendable {
    // Sendable: mutable state is in `state`, behind the lock.
    struct State {
        var count = 0
        /// Bumped when the source terminates, so that observers of the ended connection no
        /// longer count against the next one.
        var generation = 0
        var connection: SingleAssignmentDisposable?
    }

    let source: Source
    let state = LockedState(State())

    init(source: Source) {
        self.source = source
        super.init()
    }

    override func run(_ observer: AnyObserver<Source.Element>) -> Disposable {
        let sink = RefCountSink(parent: self, downstream: observer)
        sink.attach(source.subscribe(AnyObserver { sink.on($0) }))
        let toConnect = state.withLock { state -> SingleAssignmentDisposable? in
            // A sink that already terminated (the subject had ended) does not count.
            if sink.isDisposed { return nil }
            sink.generation = state.generation
            state.count += 1
            guard state.count == 1 else { return nil }
            let connection = SingleAssignmentDisposable()
            state.connection = connection
            return connection
        }
        // Connect outside the lock: a synchronous source delivers (and may terminate, or
        // lose its last observer) during `connect()`; the slot then disposes the
        // connection as soon as it arrives.
        toConnect?.setDisposable(source.connect())
        return sink
    }
}

/// One observer of a `refCount()` observable.
final class RefCountSink<Source: ConnectableObservableType>: Sink<Source.Element>, @unchecked Sendable {
    // Sendable: `generation` is only touched under the parent's lock.
    private let parent: RefCountProducer<Source>
    /// The connection generation this observer counts against; -1 until it is counted.
    var generation = -1

    init(parent: RefCountProducer<Source>, downstream: AnyObserver<Source.Element>) {
        self.parent = parent
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Source.Element>) {
        switch event {
        case .next:
            forward(event)
        case .error, .completed:
            let connection = parent.state.withLock { state -> Disposable? in
                guard generation >= 0, generation == state.generation else { return nil }
                state.count = 0
                state.generation &+= 1
                defer { state.connection = nil }
                return state.connection
            }
            connection?.dispose()
            forwardTerminal(event)
        }
    }

    override func didDispose() {
        let connection = parent.state.withLock { state -> Disposable? in
            guard generation >= 0, generation == state.generation, state.count > 0 else { return nil }
            state.count -= 1
            guard state.count == 0 else { return nil }
            defer { state.connection = nil }
            return state.connection
        }
        connection?.dispose()
    }
}
