extension ObservableType {
    /// Projects each element to an observable sequence and merges the elements of all of them into
    /// one sequence.
    ///
    /// Every inner sequence is subscribed as soon as its element arrives and they all run at once.
    /// The result completes when the source and every inner sequence have completed; an error from
    /// the source, from an inner sequence or thrown by `selector` ends it at once and disposes
    /// everything.
    ///
    /// - Parameter selector: Turns a source element into the sequence whose elements are merged.
    @inlinable
    public func flatMap<Source: ObservableConvertibleType>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        flatMapFamily(strategy: .merge, selector: selector)
    }

    /// Projects an element to an observable sequence only while no projected sequence is running,
    /// and merges the elements of the projected sequences into one sequence.
    ///
    /// Elements that arrive while an inner sequence is running are dropped without calling
    /// `selector`. The result completes when the source and the running inner sequence have
    /// completed.
    ///
    /// - Parameter selector: Turns a source element into the sequence to mirror.
    @inlinable
    public func flatMapFirst<Source: ObservableConvertibleType>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        flatMapFamily(strategy: .first, selector: selector)
    }

    /// Projects each element to an observable sequence and mirrors only the most recent one.
    ///
    /// Each new element disposes the subscription to the previous inner sequence before the new
    /// one is subscribed. The result completes when the source and the latest inner sequence
    /// have completed.
    ///
    /// - Parameter selector: Turns a source element into the sequence to mirror until the next one.
    @inlinable
    public func flatMapLatest<Source: ObservableConvertibleType>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        flatMapFamily(strategy: .latest, selector: selector)
    }

    /// Projects each element to an observable sequence and concatenates them: each inner sequence
    /// is subscribed only after the previous one completed.
    ///
    /// `selector` runs when the element arrives; the sequences it returns wait in order. The
    /// result completes when the source and every inner sequence have completed.
    ///
    /// - Parameter selector: Turns a source element into the sequence to append.
    @inlinable
    public func concatMap<Source: ObservableConvertibleType>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        flatMapFamily(strategy: .concat, selector: selector)
    }

    /// The shared body of `flatMap`, `flatMapFirst`, `flatMapLatest` and `concatMap`.
    @inlinable
    func flatMapFamily<Inner: ObservableConvertibleType>(
        strategy: FlatMapStrategy, selector: @escaping @Sendable (Element) throws -> Inner
    ) -> Observable<Inner.Element> {
        FlatMapProducer(source: asObservable(), strategy: strategy, selector: selector)
    }
}

/// The observable of the flatMap family.
///
/// A subclass rather than `Observable.make`: a `@Sendable` closure may not capture the
/// `ObservableConvertibleType` conformance of `Inner` (its metatype is not `Sendable`), a stored
/// generic parameter of a class may. Immutable, hence `Sendable`.
@usableFromInline
final class FlatMapProducer<SourceElement, Inner: ObservableConvertibleType>: Observable<Inner.Element>,
    @unchecked Sendable
{
    @usableFromInline let source: Observable<SourceElement>
    @usableFromInline let strategy: FlatMapStrategy
    @usableFromInline let selector: @Sendable (SourceElement) throws -> Inner

    @inlinable
    init(
        source: Observable<SourceElement>, strategy: FlatMapStrategy,
        selector: @escaping @Sendable (SourceElement) throws -> Inner
    ) {
        self.source = source
        self.strategy = strategy
        self.selector = selector
        super.init()
    }

    @inlinable
    override func run(_ observer: AnyObserver<Inner.Element>) -> Disposable {
        let sink = FlatMapSink(strategy: strategy, selector: selector, downstream: observer)
        sink.run(source)
        return sink
    }
}

/// How a flatMap-family sink admits inner sequences; everything else (inner bookkeeping,
/// serialised delivery, completion) is shared.
@usableFromInline
enum FlatMapStrategy: Sendable {
    /// `flatMap`: every inner sequence runs.
    case merge
    /// `flatMapFirst`: an element is projected only while nothing runs.
    case first
    /// `flatMapLatest`: a new inner sequence replaces the running one.
    case latest
    /// `concatMap`: one inner sequence at a time, the others wait in order.
    case concat
}

/// The mutable state of a `FlatMapSink`, behind its lock.
@usableFromInline
struct FlatMapState<Inner: ObservableConvertibleType> {
    /// Serialises delivery: inner sequences may emit on several threads at once.
    @usableFromInline var delivery = DeliveryLine<Event<Inner.Element>>()
    /// Inner sequences that count as running. For `latest`, 1 while the latest one runs.
    @usableFromInline var active = 0
    @usableFromInline var nextID = 0
    /// The id of the inner sequence `latest` mirrors.
    @usableFromInline var latestID = -1
    @usableFromInline var isSourceCompleted = false
    @usableFromInline var isDisposed = false
    /// The source subscription, once `run` returned, until the source completes.
    @usableFromInline var source: Disposable?
    /// Inner sequences whose `subscribe` call has not returned yet (usually one; more when a
    /// handler re-enters the source), and whether each completed meanwhile.
    @usableFromInline var subscribing: [FlatMapSubscribing] = []
    /// Subscriptions of running inner sequences whose `subscribe` has returned, by id. Inner
    /// sequences that finish during `subscribe` (`just`, `from`) never get here.
    @usableFromInline var inners: [Int: Disposable] = [:]
    /// `concatMap`'s waiting inner sequences; `waitingHead` is the first one not yet taken.
    @usableFromInline var waiting: [Inner] = []
    @usableFromInline var waitingHead = 0

    @inlinable init() {}

    /// Whether events still matter: not disposed and no terminal event submitted.
    @inlinable var isLive: Bool { !isDisposed && !delivery.isClosed }

    /// Assigns an id to an inner sequence about to be subscribed.
    @inlinable
    mutating func beginInner() -> Int {
        let id = nextID
        nextID &+= 1
        subscribing.append(FlatMapSubscribing(id: id))
        return id
    }

    /// Records that inner sequence `id` completed; returns `false` if its `subscribe` call has
    /// already returned.
    @inlinable
    mutating func markCompletedWhileSubscribing(_ id: Int) -> Bool {
        var index = subscribing.count - 1
        while index >= 0 {
            if subscribing[index].id == id {
                subscribing[index].isCompleted = true
                return true
            }
            index -= 1
        }
        return false
    }

    /// Whether inner sequence `id` is running: being subscribed and not completed, or kept
    /// after its `subscribe` returned. The subscribing list is searched first: it is short,
    /// and where a sequence that emits while subscribed (`just`, `from`) is found.
    @inlinable
    func isInnerRunning(_ id: Int) -> Bool {
        var index = subscribing.count - 1
        while index >= 0 {
            if subscribing[index].id == id { return !subscribing[index].isCompleted }
            index -= 1
        }
        return inners[id] != nil
    }

    /// Ends the `subscribe` call of inner sequence `id`; returns whether it completed during it.
    @inlinable
    mutating func endSubscribing(_ id: Int) -> Bool {
        var index = subscribing.count - 1
        while index >= 0 {
            if subscribing[index].id == id {
                return subscribing.remove(at: index).isCompleted
            }
            index -= 1
        }
        return false
    }

    @inlinable
    mutating func dequeueWaiting() -> Inner? {
        guard waitingHead < waiting.count else { return nil }
        let inner = waiting[waitingHead]
        waitingHead += 1
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        }
        return inner
    }
}

/// An inner sequence whose `subscribe` call is in progress.
@usableFromInline
struct FlatMapSubscribing {
    @usableFromInline let id: Int
    @usableFromInline var isCompleted = false

    @inlinable
    init(id: Int) {
        self.id = id
    }
}

/// What to do, outside the lock, after a decision about an inner sequence: a subscription to
/// dispose, an event to deliver and, for `concatMap`, the next sequence to subscribe.
///
/// One flat struct, filled in place, rather than optional tuples returned from the lock, which
/// the hot path would copy and destroy through generic runtime witnesses.
@usableFromInline
struct FlatMapStep<Inner: ObservableConvertibleType> {
    @usableFromInline var disposing: Disposable?
    @usableFromInline var event: Event<Inner.Element>?
    @usableFromInline var next: Inner?
    @usableFromInline var nextID: Int

    @inlinable
    init() {
        disposing = nil
        event = nil
        next = nil
        nextID = 0
    }
}

/// The per-subscription sink of the flatMap family.
///
/// One `LockedState` holds everything: the delivery queue, the running count, the inner
/// subscriptions. Inner sequences are subscribed outside the lock, each observed by a closure
/// that knows its id (no per-inner object, no per-inner lock). An inner sequence that completes
/// while its `subscribe` call is still running (the common `just` case) leaves its bookkeeping
/// to the subscribing loop, so it never needs a dictionary entry, and `concatMap`'s next
/// sequence is then subscribed iteratively instead of recursively.
///
/// The source subscription is kept in the state rather than given to `attach`, because the
/// source is unsubscribed as soon as it completes, while inner sequences may still run.
@usableFromInline
final class FlatMapSink<SourceElement, Inner: ObservableConvertibleType>: Sink<Inner.Element>, @unchecked Sendable {
    @usableFromInline typealias Output = Inner.Element

    @usableFromInline let strategy: FlatMapStrategy
    @usableFromInline let selector: @Sendable (SourceElement) throws -> Inner
    @usableFromInline let shared: LockedState<FlatMapState<Inner>>
    /// The source's end, kept apart from the sink's: a source that sends after completing
    /// is not listened to.
    @usableFromInline let sourceGate = SourceGate()

    @inlinable
    init(
        strategy: FlatMapStrategy, selector: @escaping @Sendable (SourceElement) throws -> Inner,
        downstream: AnyObserver<Output>
    ) {
        self.strategy = strategy
        self.selector = selector
        self.shared = LockedState(FlatMapState())
        super.init(downstream: downstream)
    }

    /// Subscribes to the source and keeps its subscription until the source completes.
    @inlinable
    func run(_ source: Observable<SourceElement>) {
        let subscription = source.run(AnyObserver { self.on($0) })
        let keep = shared.withLock { state -> Bool in
            guard state.isLive, !state.isSourceCompleted else { return false }
            state.source = subscription
            return true
        }
        if !keep { subscription.dispose() }
    }

    // MARK: Source events

    @inlinable
    func on(_ event: Event<SourceElement>) {
        switch event {
        case .next(let element):
            guard sourceGate.isOpen, !isStoppedOrDisposed else { return }
            switch strategy {
            case .merge: admitMerged(element)
            case .first: admitFirst(element)
            case .latest: admitLatest(element)
            case .concat: admitConcatenated(element)
            }
        case .error(let error):
            if sourceGate.close() { fail(error) }
        case .completed:
            guard sourceGate.close() else { return }
            let (source, event) = shared.withLock { state -> (Disposable?, Event<Output>?) in
                state.isSourceCompleted = true
                let source = state.source
                state.source = nil
                let event = state.active == 0 ? state.delivery.submit(.completed) : nil
                return (source, event)
            }
            source?.dispose()
            deliver(event)
        }
    }

    @inlinable
    func admitMerged(_ element: SourceElement) {
        let inner: Inner
        do { inner = try selector(element) } catch { return fail(error) }
        let observable = inner.asObservable()
        if type(of: observable) == JustProducer<Output>.self {
            return mergeJust(unsafeDowncast(observable, to: JustProducer<Output>.self).element)
        }
        let id = shared.withLock { state -> Int? in
            guard state.isLive else { return nil }
            state.active += 1
            return state.beginInner()
        }
        if let id { subscribeInner(inner, id: id) }
    }

    /// `flatMap` of an inner `just`, played here with one turn of the lock instead of five
    /// (begin, element, completion, end of subscribing, and the delivery's own).
    ///
    /// The general path would count the inner sequence as running, deliver its element, see it
    /// complete inside its `subscribe` and count it finished again: the same as submitting the
    /// element alone. The result cannot complete there either, since the source, whose element
    /// this is, has not completed. As `subscribe(_:id:)` does, the element is delivered on the
    /// current-thread trampoline if none runs.
    @inlinable
    func mergeJust(_ element: Output) {
        let play = {
            self.deliver(
                self.shared.withLock { state -> Event<Output>? in
                    guard state.isLive else { return nil }
                    return state.delivery.submit(.next(element))
                })
        }
        CurrentThreadScheduler.withTrampoline(play)
    }

    @inlinable
    func admitFirst(_ element: SourceElement) {
        // Decide first: an element that arrives while an inner sequence runs is not projected.
        let id = shared.withLock { state -> Int? in
            guard state.isLive, state.active == 0 else { return nil }
            state.active = 1
            return state.beginInner()
        }
        guard let id else { return }
        let inner: Inner
        do { inner = try selector(element) } catch { return fail(error) }
        subscribeInner(inner, id: id)
    }

    @inlinable
    func admitLatest(_ element: SourceElement) {
        let inner: Inner
        do { inner = try selector(element) } catch { return fail(error) }
        var previous: Disposable?
        let id = shared.withLock { state -> Int? in
            guard state.isLive else { return nil }
            // A previous inner sequence still inside `subscribe` has no entry yet; it sees that
            // it is no longer the latest when `subscribe` returns and disposes itself.
            if !state.inners.isEmpty { previous = state.inners.removeValue(forKey: state.latestID) }
            state.latestID = state.beginInner()
            state.active = 1
            return state.latestID
        }
        previous?.dispose()
        if let id { subscribeInner(inner, id: id) }
    }

    @inlinable
    func admitConcatenated(_ element: SourceElement) {
        // The selector runs when the element arrives, also for sequences that must wait.
        let inner: Inner
        do { inner = try selector(element) } catch { return fail(error) }
        let id = shared.withLock { state -> Int? in
            guard state.isLive else { return nil }
            if state.active == 0 {
                state.active = 1
                return state.beginInner()
            }
            state.waiting.append(inner)
            return nil
        }
        if let id { subscribeInner(inner, id: id) }
    }

    // MARK: Inner sequences

    /// Subscribes `first`, then, for `concatMap`, each waiting sequence that became due because
    /// the previous one completed inside `subscribe`. Each id was begun under the lock.
    @inlinable
    func subscribeInner(_ first: Inner, id firstID: Int) {
        var inner = first
        var id = firstID
        while true {
            let innerID = id
            // An inner sequence that sends after completing must neither reach downstream nor
            // be counted as finished twice: `innerOn` checks, under the lock it takes anyway,
            // that the sequence is still running (no gate object per inner sequence).
            let subscription = subscribe(inner, id: innerID)
            // Filled under the lock, acted on after it; a local the closure writes to, rather
            // than a returned value, keeps the copies out of generic code.
            var step = FlatMapStep<Inner>()
            shared.withLock { state in
                let completed = state.endSubscribing(innerID)
                if !state.isLive || (!completed && strategy == .latest && innerID != state.latestID) {
                    step.disposing = subscription
                } else if completed {
                    step.disposing = subscription
                    finishInner(innerID, state: &state, step: &step)
                } else {
                    state.inners[innerID] = subscription
                }
            }
            step.disposing?.dispose()
            deliver(step.event)
            guard let next = step.next else { return }
            inner = next
            id = step.nextID
        }
    }

    /// Subscribes to `inner` exactly as `Observable.subscribe` does (on the current-thread
    /// trampoline if none runs), but through the non-generic `run`: the generic class method
    /// cannot be specialised in client code, and its unspecialised path looks up generic
    /// metadata for every inner sequence.
    @inlinable
    func subscribe(_ inner: Inner, id: Int) -> Disposable {
        let observable = inner.asObservable()
        // `flatMap { .just($0) }` (and `catch`-like fallbacks) are common enough to be worth
        // their own path: recognised by its exact class (one pointer comparison), a `just`
        // is played here, specialised, with no observer built for it.
        if type(of: observable) == JustProducer<Output>.self {
            let element = unsafeDowncast(observable, to: JustProducer<Output>.self).element
            let play = {
                self.innerOn(.next(element), id: id)
                self.innerOn(.completed, id: id)
            }
            CurrentThreadScheduler.withTrampoline(play)
            return NopDisposable()
        }
        let observer = AnyObserver { self.innerOn($0, id: id) }
        return CurrentThreadScheduler.withTrampoline { observable.run(observer) }
    }

    /// An event from inner sequence `id`.
    @inlinable
    func innerOn(_ event: Event<Output>, id: Int) {
        switch event {
        case .next, .error:
            let event = shared.withLock { state -> Event<Output>? in
                // A sequence that already completed is ignored; and `flatMapLatest` ignores
                // a replaced sequence that has not noticed yet.
                guard state.isInnerRunning(id) else { return nil }
                if strategy == .latest && id != state.latestID { return nil }
                return state.delivery.submit(event)
            }
            deliver(event)
        case .completed:
            var step = FlatMapStep<Inner>()
            shared.withLock { state in
                // Still inside `subscribe`: the subscribing loop finishes the bookkeeping
                // (a second completion there is recorded once).
                if state.markCompletedWhileSubscribing(id) { return }
                // Not running (completed before, or never kept): nothing to account for.
                guard let subscription = state.inners.removeValue(forKey: id) else { return }
                step.disposing = subscription
                if state.isLive { finishInner(id, state: &state, step: &step) }
            }
            step.disposing?.dispose()
            deliver(step.event)
            if let next = step.next { subscribeInner(next, id: step.nextID) }
        }
    }

    /// Accounts for completed inner sequence `id`: frees its slot or hands it to the next
    /// waiting sequence (into `step`), and completes the result when nothing is left.
    @inlinable
    func finishInner(_ id: Int, state: inout FlatMapState<Inner>, step: inout FlatMapStep<Inner>) {
        switch strategy {
        case .merge, .first:
            state.active -= 1
        case .concat:
            if let waiting = state.dequeueWaiting() {
                step.next = waiting
                step.nextID = state.beginInner()
                return
            }
            state.active -= 1
        case .latest:
            // A replaced sequence's completion changes nothing.
            guard id == state.latestID else { return }
            state.active = 0
        }
        if state.isSourceCompleted && state.active == 0 {
            step.event = state.delivery.submit(.completed)
        }
    }

    // MARK: Delivery and disposal

    @inlinable
    func fail(_ error: Swift.Error) {
        deliver(shared.withLock { $0.delivery.submit(.error(error)) })
    }

    /// Delivers `first` and whatever was queued behind it, outside the lock.
    @inlinable
    func deliver(_ first: Event<Output>?) {
        var event = first
        while let current = event {
            forwardEvent(current)
            event = shared.withLock { $0.delivery.next() }
        }
    }

    @usableFromInline
    override func didDispose() {
        let (source, inners, waiting) = shared.withLock { state -> (Disposable?, [Int: Disposable], [Inner]) in
            state.isDisposed = true
            defer {
                state.source = nil
                state.inners = [:]
                state.waiting = []
                state.waitingHead = 0
            }
            return (state.source, state.inners, state.waiting)
        }
        source?.dispose()
        // In subscription order, as a composite disposable would.
        for id in inners.keys.sorted() { inners[id]?.dispose() }
        // The waiting sequences are released here, outside the lock.
        _ = waiting
    }
}
