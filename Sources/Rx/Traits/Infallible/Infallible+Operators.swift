extension InfallibleType {
    /// Transforms each element with `transform`.
    public func map<Result>(_ transform: @escaping @Sendable (Element) -> Result) -> Infallible<Result> {
        Infallible(TraitMapProducer(source: asObservable(), transform: transform))
    }

    /// Only the elements for which `predicate` is true.
    public func filter(_ predicate: @escaping @Sendable (Element) -> Bool) -> Infallible<Element> {
        Infallible(asObservable().filter(predicate))
    }

    /// The elements transformed by `transform`, without the `nil` results.
    public func compactMap<Result>(_ transform: @escaping @Sendable (Element) -> Result?) -> Infallible<Result> {
        Infallible(Observable.traitCompactMap(asObservable(), transform))
    }

    /// The elements of all the sequences that `selector` makes from the elements, merged
    /// as they come; completes once this sequence and every inner one have completed.
    ///
    /// As in RxSwift, `selector` may return any observable: an error from it would break
    /// the guarantee, so it should return sequences that cannot fail.
    public func flatMap<Source: ObservableConvertibleType>(_ selector: @escaping @Sendable (Element) -> Source)
        -> Infallible<Source.Element>
    {
        let source = asObservable()
        let select = Observable<Element>.infallibleSelector(selector)
        return Infallible(
            Observable<Source.Element>.make { observer in
                let sink = InfallibleFlatMapSink(selector: select.value, downstream: observer)
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            })
    }

    /// The elements of the sequence that `selector` made from the latest element: each
    /// new element disposes the previous inner sequence. Completes once this sequence and
    /// the latest inner one have completed.
    public func flatMapLatest<Source: ObservableConvertibleType>(_ selector: @escaping @Sendable (Element) -> Source)
        -> Infallible<Source.Element>
    {
        let source = asObservable()
        let select = Observable<Element>.infallibleSelector(selector)
        return Infallible(
            Observable<Source.Element>.make { observer in
                let sink = InfallibleFlatMapLatestSink(selector: select.value, downstream: observer)
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            })
    }

    /// The elements of the sequence that `selector` made from an element that arrived
    /// while no inner sequence was running; elements that arrive while one runs are
    /// dropped. Completes once this sequence and the running inner one have completed.
    ///
    /// As in RxSwift, `selector` may return any observable: an error from it would break
    /// the guarantee, so it should return sequences that cannot fail.
    public func flatMapFirst<Source: ObservableConvertibleType>(_ selector: @escaping @Sendable (Element) -> Source)
        -> Infallible<Source.Element>
    {
        Infallible(asObservable().flatMapFirst(selector))
    }
}

extension Observable {
    /// Erases the inner sequence's type, so that the subscription closure needs no
    /// conformance of it (the selector is `@Sendable`; the box only carries the erasure).
    fileprivate static func infallibleSelector<Source: ObservableConvertibleType>(
        _ selector: @escaping @Sendable (Element) -> Source
    ) -> UncheckedSendable<(Element) -> Observable<Source.Element>> {
        UncheckedSendable({ selector($0).asObservable() })
    }
}

/// One subscription of `Infallible.flatMap`: every inner sequence is subscribed as its
/// element arrives; their events, and the source's, are serialised through the
/// `DeliveryLine`.
final class InfallibleFlatMapSink<Source, Result>: Sink<Result>, @unchecked Sendable {
    private struct State {
        /// The source and the inner sequences still running.
        var active = 1
        var delivery = DeliveryLine<Event<Result>>()
    }

    private let selector: (Source) -> Observable<Result>
    private let lock = LockedState(State())
    private let inners = CompositeDisposable()
    // The source's and each inner sequence's ends are kept apart from the sink's: one
    // that sends after completing must neither reach downstream nor count twice.
    private let sourceGate = SourceGate()

    init(selector: @escaping (Source) -> Observable<Result>, downstream: AnyObserver<Result>) {
        self.selector = selector
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            guard sourceGate.isOpen, !isStoppedOrDisposed else { return }
            let inner = selector(element)
            let slot = SingleAssignmentDisposable()
            guard let key = inners.insert(slot) else { return }
            lock.withLock { $0.active += 1 }
            let gate = SourceGate()
            slot.setDisposable(inner.subscribe(AnyObserver { self.onInner($0, key: key, gate: gate) }))
        case .error(let error):
            if sourceGate.close() { deliver(.error(error)) }
        case .completed:
            if sourceGate.close() { finishOne() }
        }
    }

    private func onInner(_ event: Event<Result>, key: CompositeDisposable.DisposeKey, gate: SourceGate) {
        switch event {
        case .next:
            if gate.isOpen { deliver(event) }
        case .error:
            if gate.close() { deliver(event) }
        case .completed:
            guard gate.close() else { return }
            inners.remove(for: key)
            finishOne()
        }
    }

    private func finishOne() {
        let first = lock.withLock { state -> Event<Result>? in
            state.active -= 1
            return state.active == 0 ? state.delivery.submit(.completed) : nil
        }
        drain(first)
    }

    private func deliver(_ event: Event<Result>) {
        drain(lock.withLock { $0.delivery.submit(event) })
    }

    private func drain(_ first: Event<Result>?) {
        lock.drain(startingWith: first, queue: \.delivery) { forwardEvent($0) }
    }

    override func didDispose() {
        inners.dispose()
    }
}

/// One subscription of `Infallible.flatMapLatest`: only the latest inner sequence's
/// events go through (an older one's are recognised by their id); delivery is
/// serialised through the `DeliveryLine`.
final class InfallibleFlatMapLatestSink<Source, Result>: Sink<Result>, @unchecked Sendable {
    private struct State {
        var latest = 0
        var hasInner = false
        var isSourceDone = false
        var delivery = DeliveryLine<Event<Result>>()
    }

    private let selector: (Source) -> Observable<Result>
    private let lock = LockedState(State())
    private let inner = SerialDisposable()
    // The source's end is kept apart from the sink's: a source that sends after
    // completing is not listened to.
    private let sourceGate = SourceGate()

    init(selector: @escaping (Source) -> Observable<Result>, downstream: AnyObserver<Result>) {
        self.selector = selector
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            guard sourceGate.isOpen, !isStoppedOrDisposed else { return }
            let sequence = selector(element)
            let id = lock.withLock { state -> Int in
                state.latest &+= 1
                state.hasInner = true
                return state.latest
            }
            let slot = SingleAssignmentDisposable()
            // Replacing the previous inner subscription disposes it.
            inner.disposable = slot
            // Weak: the slot holds the subscription, which holds this observer.
            slot.setDisposable(sequence.subscribe(AnyObserver { [weak slot] in self.onInner($0, id: id, slot: slot) }))
        case .error(let error):
            guard sourceGate.close() else { return }
            drain(lock.withLock { $0.delivery.submit(.error(error)) })
        case .completed:
            guard sourceGate.close() else { return }
            let first = lock.withLock { state -> Event<Result>? in
                state.isSourceDone = true
                return state.hasInner ? nil : state.delivery.submit(.completed)
            }
            drain(first)
        }
    }

    private func onInner(_ event: Event<Result>, id: Int, slot: SingleAssignmentDisposable?) {
        let (first, completed) = lock.withLock { state -> (Event<Result>?, Bool) in
            // `hasInner`: the latest sequence's completion ends it, whatever it sends after.
            guard state.latest == id, state.hasInner else { return (nil, false) }
            switch event {
            case .next, .error:
                return (state.delivery.submit(event), false)
            case .completed:
                state.hasInner = false
                return (state.isSourceDone ? state.delivery.submit(.completed) : nil, true)
            }
        }
        // As in RxSwift, a completed inner sequence is unsubscribed at once.
        if completed { slot?.dispose() }
        drain(first)
    }

    private func drain(_ first: Event<Result>?) {
        lock.drain(startingWith: first, queue: \.delivery) { forwardEvent($0) }
    }

    override func didDispose() {
        inner.dispose()
    }
}
