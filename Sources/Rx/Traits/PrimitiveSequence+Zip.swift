extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The elements of all the singles, combined by `resultSelector` once every one has
    /// succeeded; the first error ends the result. An empty collection succeeds with
    /// `resultSelector([])`.
    public static func zip<Collection: Swift.Collection, Result>(
        _ collection: Collection, resultSelector: @escaping @Sendable ([Element]) throws -> Result
    ) -> PrimitiveSequence<Trait, Result> where Collection.Element == PrimitiveSequence<Trait, Element> {
        PrimitiveSequence<Trait, Result>(
            raw: Observable<Result>.traitZip(collection.map(\.source), resultSelector: resultSelector))
    }

    /// The elements of all the singles, in order, once every one has succeeded; the first
    /// error ends the result. An empty collection succeeds with `[]`.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection)
        -> PrimitiveSequence<Trait, [Element]> where Collection.Element == PrimitiveSequence<Trait, Element>
    {
        PrimitiveSequence<Trait, [Element]>(
            raw: Observable<[Element]>.traitZip(collection.map(\.source), resultSelector: { $0 }))
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The elements of all the maybes, combined by `resultSelector` once every one has
    /// produced its element; completes without one if any completes empty. An empty
    /// collection produces `resultSelector([])`.
    public static func zip<Collection: Swift.Collection, Result>(
        _ collection: Collection, resultSelector: @escaping @Sendable ([Element]) throws -> Result
    ) -> PrimitiveSequence<Trait, Result> where Collection.Element == PrimitiveSequence<Trait, Element> {
        PrimitiveSequence<Trait, Result>(
            raw: Observable<Result>.traitZip(collection.map(\.source), resultSelector: resultSelector))
    }

    /// The elements of all the maybes, in order, once every one has produced its element.
    /// An empty collection produces `[]`.
    public static func zip<Collection: Swift.Collection>(_ collection: Collection)
        -> PrimitiveSequence<Trait, [Element]> where Collection.Element == PrimitiveSequence<Trait, Element>
    {
        PrimitiveSequence<Trait, [Element]>(
            raw: Observable<[Element]>.traitZip(collection.map(\.source), resultSelector: { $0 }))
    }
}

extension Observable {
    /// Zip over a collection of trait sources, with RxSwift's collection-zip rules: the
    /// result when every source has an element; completion when all sources completed, or
    /// when an element arrives while every other source has completed (it can never be
    /// matched); the first error ends the result.
    static func traitZip<Source>(
        _ sources: [Observable<Source>], resultSelector: @escaping @Sendable ([Source]) throws -> Element
    ) -> Observable<Element> {
        if sources.isEmpty {
            return deferred { Observable.just(try resultSelector([])) }
        }
        return make { observer in
            let sink = TraitZipSink(
                count: sources.count, completesWhenUnmatchable: true, resultSelector: resultSelector,
                downstream: observer)
            sink.run(sources.map { source in { source.subscribe($0) } })
            return sink
        }
    }

    /// Zip over sources of different element types, as the fixed arities need: each
    /// source is seen through its elements as `Any` (the result selector casts back).
    /// It completes once every source has completed, as RxSwift's fixed-arity zip does.
    static func traitZipArity(
        _ sources: [@Sendable (AnyObserver<Any>) -> Disposable],
        resultSelector: @escaping @Sendable ([Any]) throws -> Element
    ) -> Observable<Element> {
        make { observer in
            let sink = TraitZipSink(
                count: sources.count, completesWhenUnmatchable: false, resultSelector: resultSelector,
                downstream: observer)
            sink.run(sources)
            return sink
        }
    }
}

/// A zip source as seen by `TraitZipSink`: subscribes an observer of `Any` to `source`.
func traitZipErased<Element>(_ source: Observable<Element>) -> @Sendable (AnyObserver<Any>) -> Disposable {
    { observer in source.subscribe(AnyObserver<Element> { observer.on($0.map { $0 as Any }) }) }
}

/// The error of a zip whose result selector received an element of an unexpected type;
/// the fixed-arity zips cannot produce it.
func traitZipCast<Value>(_ value: Any) throws -> Value {
    guard let typed = value as? Value else { throw RxError.unknown }
    return typed
}

/// One subscription of a trait zip.
///
/// Each source is a trait, so it has at most one element: one slot per source is enough.
/// Sources may deliver from different threads; decisions are made under the lock and
/// delivery goes through the `DeliveryLine`.
final class TraitZipSink<Source, Result>: Sink<Result>, @unchecked Sendable {
    private struct State {
        var values: [Source?]
        var valueCount = 0
        var isDone: [Bool]
        var doneCount = 0
        var delivery = DeliveryLine<Event<Result>>()
    }

    private enum Decision {
        case none
        case combine([Source])
        case deliver(Event<Result>?)
    }

    private let lock: LockedState<State>
    private let count: Int
    /// RxSwift's collection zip also completes when an element arrives that can never be
    /// matched (every other source has completed); its fixed-arity zip waits for all.
    private let completesWhenUnmatchable: Bool
    private let resultSelector: @Sendable ([Source]) throws -> Result
    private let subscriptions: [SingleAssignmentDisposable]

    init(
        count: Int, completesWhenUnmatchable: Bool, resultSelector: @escaping @Sendable ([Source]) throws -> Result,
        downstream: AnyObserver<Result>
    ) {
        self.count = count
        self.completesWhenUnmatchable = completesWhenUnmatchable
        self.resultSelector = resultSelector
        lock = LockedState(
            State(values: Array(repeating: nil, count: count), isDone: Array(repeating: false, count: count)))
        subscriptions = (0..<count).map { _ in SingleAssignmentDisposable() }
        super.init(downstream: downstream)
    }

    func run(_ sources: [@Sendable (AnyObserver<Source>) -> Disposable]) {
        for (index, subscribe) in sources.enumerated() {
            // A synchronous error disposes everything: the rest are never subscribed.
            guard !isStoppedOrDisposed else { return }
            subscriptions[index].setDisposable(subscribe(AnyObserver { self.on($0, at: index) }))
        }
    }

    private func on(_ event: Event<Source>, at index: Int) {
        switch event {
        case .next(let value):
            let decision = lock.withLock { state -> Decision in
                // A trait has at most one element; a slot already filled keeps it. What a
                // completed source still sends, breaking the grammar, is dropped.
                guard state.values[index] == nil, !state.isDone[index] else { return .none }
                state.values[index] = value
                state.valueCount += 1
                if state.valueCount == count {
                    let values = state.values.compactMap { $0 }
                    state.values = Array(repeating: nil, count: count)
                    state.valueCount = 0
                    return .combine(values)
                }
                if completesWhenUnmatchable && state.doneCount == count - 1 {
                    return .deliver(state.delivery.submit(.completed))
                }
                return .none
            }
            switch decision {
            case .none: return
            case .deliver(let first): drain(first)
            case .combine(let values):
                let result: Event<Result>
                do {
                    result = .next(try resultSelector(values))
                } catch {
                    result = .error(error)
                }
                drain(lock.withLock { $0.delivery.submit(result) })
            }
        case .error(let error):
            drain(lock.withLock { $0.isDone[index] ? nil : $0.delivery.submit(.error(error)) })
        case .completed:
            subscriptions[index].dispose()
            let first = lock.withLock { state -> Event<Result>? in
                guard !state.isDone[index] else { return nil }
                state.isDone[index] = true
                state.doneCount += 1
                return state.doneCount == count ? state.delivery.submit(.completed) : nil
            }
            drain(first)
        }
    }

    private func drain(_ first: Event<Result>?) {
        lock.drain(startingWith: first, queue: \.delivery) { forwardEvent($0) }
    }

    override func didDispose() {
        for subscription in subscriptions { subscription.dispose() }
    }
}
