extension ObservableType {
    /// Combines the sources in `collection` with `resultSelector` element by element: the
    /// n-th result is made of the n-th element of every source.
    ///
    /// Elements wait in a queue per source until every source has one. Completes when every
    /// source has completed, or when a source emits while every other source has completed
    /// and some queue is empty (as RxSwift's collection `zip` does). An error from a source
    /// or from `resultSelector` ends the sequence at once. An empty collection completes as
    /// soon as it is subscribed.
    ///
    /// - Parameters:
    ///   - collection: The sources, subscribed in order.
    ///   - resultSelector: Called with one element of every source, in source order.
    public static func zip<Collection: Swift.Collection>(
        _ collection: Collection,
        resultSelector: @escaping @Sendable ([Collection.Element.Element]) throws -> Element
    ) -> Observable<Element> where Collection.Element: ObservableType {
        typealias Source = Collection.Element.Element
        let sources = collection.map { $0.asObservable() }
        return Observable<Element>.make { observer in
            guard !sources.isEmpty else {
                observer.on(.completed)
                return Disposables.create()
            }
            let sink = ZipSink<[CombiningQueue<Source>], [Source], Element>(
                arity: sources.count, buffers: Array(repeating: CombiningQueue(), count: sources.count),
                completesWhenOthersAreDone: true, downstream: observer,
                dequeue: { buffers in
                    var row: [Source] = []
                    row.reserveCapacity(buffers.count)
                    for index in buffers.indices {
                        guard let element = buffers[index].dequeue() else { return nil }
                        row.append(element)
                    }
                    return row
                },
                select: resultSelector)
            for (index, source) in sources.enumerated() {
                sink.subscribe(source, at: index) { buffers, element in buffers[index].enqueue(element) }
            }
            return sink
        }
    }

    /// Emits arrays made of the n-th element of every source in `collection`.
    ///
    /// Completion and errors are as in `zip(_:resultSelector:)`.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection) -> Observable<[Element]>
    where Collection.Element: ObservableType, Collection.Element.Element == Element {
        Observable<[Element]>.zip(collection, resultSelector: { $0 })
    }
}

/// The engine of every `zip`: one queue per source in `Buffers` (a tuple of queues for the
/// fixed arities, an array for collections), all in one locked state.
///
/// Under the lock an element is queued and, once every queue has one, a row is dequeued
/// and queued on the `DeliveryLine`; the thread that delivers applies the result selector
/// to each row outside the lock, so the selector and downstream are never called
/// concurrently.
@usableFromInline
final class ZipSink<Buffers, Row, Result>: Sink<Result>, @unchecked Sendable {
    // Sendable: mutable state is in `locked`, behind its lock; the rest is immutable.

    /// Bookkeeping for one source.
    @usableFromInline
    struct Source {
        @usableFromInline var subscription = CombiningSlot.pending
        @usableFromInline var queued = 0
        @usableFromInline var isDone = false

        @inlinable init() {}
    }

    @usableFromInline
    struct State {
        @usableFromInline var buffers: Buffers
        @usableFromInline var sources: [Source]
        /// The number of sources with at least one queued element.
        @usableFromInline var readyCount = 0
        @usableFromInline var doneCount = 0
        @usableFromInline var delivery = DeliveryLine<Event<Row>>()

        @inlinable
        init(buffers: Buffers, arity: Int) {
            self.buffers = buffers
            sources = Array(repeating: Source(), count: arity)
        }
    }

    @usableFromInline let arity: Int
    /// RxSwift's collection `zip` also completes when a source emits while all the others
    /// are done and some queue is empty; its fixed-arity `zip` waits for every source.
    @usableFromInline let completesWhenOthersAreDone: Bool
    @usableFromInline let locked: LockedState<State>
    /// Removes one element from every queue (all are non-empty when it is called; `nil`
    /// cannot happen and only spares a force unwrap).
    @usableFromInline let dequeue: @Sendable (inout Buffers) -> Row?
    @usableFromInline let select: @Sendable (Row) throws -> Result

    @inlinable
    init(
        arity: Int, buffers: Buffers, completesWhenOthersAreDone: Bool, downstream: AnyObserver<Result>,
        dequeue: @escaping @Sendable (inout Buffers) -> Row?, select: @escaping @Sendable (Row) throws -> Result
    ) {
        self.arity = arity
        self.completesWhenOthersAreDone = completesWhenOthersAreDone
        self.dequeue = dequeue
        self.select = select
        locked = LockedState(State(buffers: buffers, arity: arity))
        super.init(downstream: downstream)
    }

    /// Subscribes to the source at `index`; `store` queues its element in the buffers.
    @inlinable
    final func subscribe<Element>(
        _ source: Observable<Element>, at index: Int, store: @escaping (inout Buffers, Element) -> Void
    ) {
        let subscription = source.run(AnyObserver { [self] event in on(event, at: index, store: store) })
        let late = locked.withLock { $0.sources[index].subscription.assign(subscription) }
        late?.dispose()
    }

    @inlinable
    final func on<Element>(_ event: Event<Element>, at index: Int, store: (inout Buffers, Element) -> Void) {
        let arity = self.arity
        switch event {
        case .next(let element):
            let first = locked.withLock { state -> Event<Row>? in
                // `isDone`: what a completed source still sends, breaking the grammar, is dropped.
                guard !state.delivery.isClosed, !state.sources[index].isDone else { return nil }
                store(&state.buffers, element)
                state.sources[index].queued += 1
                if state.sources[index].queued == 1 { state.readyCount += 1 }
                if state.readyCount == arity {
                    guard let row = dequeue(&state.buffers) else { return nil }
                    for source in state.sources.indices {
                        state.sources[source].queued -= 1
                        if state.sources[source].queued == 0 { state.readyCount -= 1 }
                    }
                    return state.delivery.submit(.next(row))
                }
                if completesWhenOthersAreDone && state.doneCount == arity - 1 {
                    return state.delivery.submit(.completed)
                }
                return nil
            }
            if let first { deliver(startingWith: first) }
        case .error(let error):
            let (first, subscription) = locked.withLock { state -> (Event<Row>?, Disposable?) in
                guard !state.sources[index].isDone else { return (nil, nil) }
                return (state.delivery.submit(.error(error)), state.sources[index].subscription.finish())
            }
            subscription?.dispose()
            if let first { deliver(startingWith: first) }
        case .completed:
            let (first, subscription) = locked.withLock { state -> (Event<Row>?, Disposable?) in
                // A completed source is unsubscribed at once, as in RxSwift.
                let subscription = state.sources[index].subscription.finish()
                guard !state.sources[index].isDone else { return (nil, subscription) }
                state.sources[index].isDone = true
                state.doneCount += 1
                return (state.doneCount == arity ? state.delivery.submit(.completed) : nil, subscription)
            }
            subscription?.dispose()
            if let first { deliver(startingWith: first) }
        }
    }

    /// Delivers `first` and whatever was queued behind it, outside the lock.
    @inlinable
    final func deliver(startingWith first: Event<Row>) {
        var event: Event<Row>? = first
        while let current = event {
            switch current {
            case .next(let row):
                if !isStoppedOrDisposed {
                    do {
                        forward(.next(try select(row)))
                    } catch {
                        locked.withLock { $0.delivery.isClosed = true }
                        forwardTerminal(.error(error))
                    }
                }
            case .error(let error):
                forwardTerminal(.error(error))
            case .completed:
                forwardTerminal(.completed)
            }
            event = locked.withLock { $0.delivery.next() }
        }
    }

    @usableFromInline
    override func didDispose() {
        let subscriptions = locked.withLock { state -> [Disposable] in
            state.delivery.isClosed = true
            var subscriptions: [Disposable] = []
            for index in state.sources.indices {
                if let subscription = state.sources[index].subscription.finish() {
                    subscriptions.append(subscription)
                }
            }
            return subscriptions
        }
        for subscription in subscriptions { subscription.dispose() }
    }
}
