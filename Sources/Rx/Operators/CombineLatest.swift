extension ObservableType {
    /// Combines the latest elements of the sources in `collection` with `resultSelector`
    /// whenever any source emits, once every source has emitted at least once.
    ///
    /// Completes when every source has completed, or when a source emits while every other
    /// source has completed and some source never emitted (no combination can come). An
    /// error from a source or from `resultSelector` ends the sequence at once. An empty
    /// collection emits `resultSelector([])` and completes as soon as it is subscribed (as
    /// RxSwift 6 does; a throwing `resultSelector` fails it instead).
    ///
    /// - Parameters:
    ///   - collection: The sources, subscribed in order.
    ///   - resultSelector: Called with the latest element of every source, in source order.
    public static func combineLatest<Collection: Swift.Collection>(
        _ collection: Collection,
        resultSelector: @escaping @Sendable ([Collection.Element.Element]) throws -> Element
    ) -> Observable<Element> where Collection.Element: ObservableType {
        let sources = collection.map { $0.asObservable() }
        return Observable<Element>.make { observer in
            guard !sources.isEmpty else {
                do {
                    observer.on(.next(try resultSelector([])))
                    observer.on(.completed)
                } catch {
                    observer.on(.error(error))
                }
                return Disposables.create()
            }
            let sink = CombineLatestSink<[Collection.Element.Element?], Element>(
                arity: sources.count, values: Array(repeating: nil, count: sources.count), downstream: observer
            ) { values in
                var elements: [Collection.Element.Element] = []
                elements.reserveCapacity(values.count)
                for value in values {
                    guard let value else { return nil }
                    elements.append(value)
                }
                return try resultSelector(elements)
            }
            for (index, source) in sources.enumerated() {
                sink.subscribe(source, at: index) { values, element in values[index] = element }
            }
            return sink
        }
    }

    /// Emits the array of the latest elements of the sources in `collection` whenever any
    /// source emits, once every source has emitted at least once.
    ///
    /// Completion and errors are as in `combineLatest(_:resultSelector:)`.
    public static func combineLatest<Collection: Swift.Collection>(_ collection: Collection) -> Observable<[Element]>
    where Collection.Element: ObservableType, Collection.Element.Element == Element {
        Observable<[Element]>.combineLatest(collection, resultSelector: { $0 })
    }
}

/// The engine of every `combineLatest`: one slot per source in `Values` (a tuple of
/// optionals for the fixed arities, an array for collections), all in one locked state.
///
/// Under the lock a source's element is stored and, once every source has a value, a
/// snapshot of the values is queued on the `DeliveryLine`; the thread that delivers
/// applies the result selector to each snapshot outside the lock, in snapshot order, so
/// the selector and downstream are never called concurrently and the last combination
/// delivered is always made of the latest values.
@usableFromInline
final class CombineLatestSink<Values, Result>: Sink<Result>, @unchecked Sendable {
    // Sendable: mutable state is in `locked`, behind its lock; the rest is immutable.

    /// Bookkeeping for one source.
    @usableFromInline
    struct Source {
        @usableFromInline var subscription = CombiningSlot.pending
        @usableFromInline var hasValue = false
        @usableFromInline var isDone = false

        @inlinable init() {}
    }

    @usableFromInline
    struct State {
        @usableFromInline var values: Values
        @usableFromInline var sources: [Source]
        @usableFromInline var valueCount = 0
        @usableFromInline var doneCount = 0
        @usableFromInline var delivery = DeliveryLine<Event<Values>>()

        @inlinable
        init(values: Values, arity: Int) {
            self.values = values
            sources = Array(repeating: Source(), count: arity)
        }
    }

    @usableFromInline let arity: Int
    @usableFromInline let locked: LockedState<State>
    /// Builds the result from a snapshot in which every slot has a value (`nil` cannot
    /// happen; it only spares a force unwrap).
    @usableFromInline let select: @Sendable (Values) throws -> Result?

    @inlinable
    init(
        arity: Int, values: Values, downstream: AnyObserver<Result>,
        select: @escaping @Sendable (Values) throws -> Result?
    ) {
        self.arity = arity
        self.select = select
        locked = LockedState(State(values: values, arity: arity))
        super.init(downstream: downstream)
    }

    /// Subscribes to the source at `index`; `store` writes its element into the values.
    @inlinable
    final func subscribe<Element>(
        _ source: Observable<Element>, at index: Int, store: @escaping (inout Values, Element) -> Void
    ) {
        let subscription = source.run(AnyObserver { [self] event in on(event, at: index, store: store) })
        let late = locked.withLock { $0.sources[index].subscription.assign(subscription) }
        late?.dispose()
    }

    @inlinable
    final func on<Element>(_ event: Event<Element>, at index: Int, store: (inout Values, Element) -> Void) {
        let arity = self.arity
        switch event {
        case .next(let element):
            let first = locked.withLock { state -> Event<Values>? in
                // `isDone`: what a completed source still sends, breaking the grammar, is dropped.
                guard !state.delivery.isClosed, !state.sources[index].isDone else { return nil }
                store(&state.values, element)
                if !state.sources[index].hasValue {
                    state.sources[index].hasValue = true
                    state.valueCount += 1
                }
                if state.valueCount == arity {
                    return state.delivery.submit(.next(state.values))
                }
                // Some source has no value yet; if all the others are done, none ever will.
                let othersDone = state.doneCount - (state.sources[index].isDone ? 1 : 0)
                return othersDone == arity - 1 ? state.delivery.submit(.completed) : nil
            }
            if let first { deliver(startingWith: first) }
        case .error(let error):
            let (first, subscription) = locked.withLock { state -> (Event<Values>?, Disposable?) in
                guard !state.sources[index].isDone else { return (nil, nil) }
                return (state.delivery.submit(.error(error)), state.sources[index].subscription.finish())
            }
            subscription?.dispose()
            if let first { deliver(startingWith: first) }
        case .completed:
            let (first, subscription) = locked.withLock { state -> (Event<Values>?, Disposable?) in
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
    final func deliver(startingWith first: Event<Values>) {
        var event: Event<Values>? = first
        while let current = event {
            switch current {
            case .next(let values):
                if !isStoppedOrDisposed {
                    do {
                        if let result = try select(values) { forward(.next(result)) }
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
