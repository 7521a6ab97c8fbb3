extension ObservableType where Element: InnerObservableConvertibleType {
    /// Merges the elements of the inner sequences into one sequence, as they arrive.
    ///
    /// Each inner sequence is subscribed as soon as the source emits it. Completes when the
    /// source and every inner sequence have completed; an error from any of them ends the
    /// sequence at once. The source is unsubscribed as soon as it completes.
    @inlinable
    public func merge() -> Observable<Element.Element> {
        mergeInner(asObservable(), maxConcurrent: .max)
    }

    /// Merges the elements of the inner sequences into one sequence, subscribed to at most
    /// `maxConcurrent` at a time.
    ///
    /// Inner sequences beyond the limit wait, in order, until a subscribed one completes.
    /// Completion and errors are as in `merge()`.
    ///
    /// - Parameter maxConcurrent: The largest number of inner sequences subscribed at once.
    ///   Below 1 no inner sequence could ever run, so the sequence fails with
    ///   `RxError.argumentOutOfRange` when subscribed.
    @inlinable
    public func merge(maxConcurrent: Int) -> Observable<Element.Element> {
        guard maxConcurrent > 0 else { return Observable<Element.Element>.error(RxError.argumentOutOfRange) }
        return mergeInner(asObservable(), maxConcurrent: maxConcurrent)
    }
}

extension ObservableType {
    /// Merges the elements of the sequences in `sources` into one sequence, as they arrive.
    ///
    /// Every source is subscribed at once, in order. Completes when every source has
    /// completed (at once if there is none); an error from any source ends the sequence.
    @inlinable
    public static func merge<Collection: Swift.Collection>(_ sources: Collection) -> Observable<Element>
    where Collection.Element == Observable<Element> {
        mergeArray(Array(sources))
    }

    /// Merges the elements of the sequences in `sources` into one sequence, as they arrive.
    ///
    /// Every source is subscribed at once, in order. Completes when every source has
    /// completed (at once if there is none); an error from any source ends the sequence.
    @inlinable
    public static func merge(_ sources: [Observable<Element>]) -> Observable<Element> {
        mergeArray(sources)
    }

    /// Merges the elements of `sources` into one sequence, as they arrive.
    ///
    /// Every source is subscribed at once, in order. Completes when every source has
    /// completed (at once if there is none); an error from any source ends the sequence.
    @inlinable
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        mergeArray(sources)
    }
}

/// `merge()` and `merge(maxConcurrent:)`; also `concat()`.
@inlinable
func mergeInner<Inner: InnerObservableConvertibleType>(_ source: Observable<Inner>, maxConcurrent: Int)
    -> Observable<Inner.Element>
{
    Observable<Inner.Element>.make { observer in
        let sink = MergeSink<Inner>(maxConcurrent: maxConcurrent, downstream: observer)
        sink.run(source)
        return sink
    }
}

/// The static `merge`s.
@inlinable
func mergeArray<Element>(_ sources: [Observable<Element>]) -> Observable<Element> {
    Observable<Element>.make { observer in
        let sink = MergeSink<Observable<Element>>(maxConcurrent: .max, downstream: observer)
        sink.run(sources: sources)
        return sink
    }
}

/// The sink of every `merge` (and of `concat()`, which is `merge(maxConcurrent: 1)`).
///
/// Inner events from any thread are serialised through one `DeliveryLine`. Inner
/// subscriptions live in the locked state, keyed by subscription order; a waiting inner
/// sequence is started by whichever thread holds the "starting" role, in a loop, so that
/// inner sequences which complete during their own subscription do not recurse.
@usableFromInline
final class MergeSink<Inner: ObservableConvertibleType>: Sink<Inner.Element>, @unchecked Sendable {
    // Sendable: mutable state is in `locked`, behind its lock; the rest is immutable.
    @usableFromInline typealias Output = Inner.Element

    @usableFromInline
    struct State {
        @usableFromInline var delivery = DeliveryLine<Event<Output>>()
        @usableFromInline var outer = CombiningSlot.pending
        /// Inner subscriptions; a key is removed when its inner sequence finishes.
        @usableFromInline var inners: [Int: CombiningSlot] = [:]
        @usableFromInline var nextKey = 0
        /// Inner sequences subscribed, being subscribed, or owed a start.
        @usableFromInline var activeCount = 0
        /// Whether the source (the outer sequence) has completed.
        @usableFromInline var isStopped = false
        /// Inner sequences over the `maxConcurrent` limit, in arrival order.
        @usableFromInline var waiting = CombiningQueue<Inner>()
        /// Waiting inner sequences whose turn has come but which are not subscribed yet.
        @usableFromInline var startsOwed = 0
        @usableFromInline var isStarting = false

        /// Reserves a key for an inner subscription about to start.
        @inlinable
        mutating func reserveInner() -> Int {
            let key = nextKey
            nextKey += 1
            inners[key] = .pending
            return key
        }

        /// The next waiting inner sequence to start, with its key, if one is owed a start.
        @inlinable
        mutating func takeOwedStart() -> (Inner, Int)? {
            guard startsOwed > 0, !delivery.isClosed, let inner = waiting.dequeue() else { return nil }
            startsOwed -= 1
            return (inner, reserveInner())
        }
    }

    @usableFromInline let maxConcurrent: Int
    @usableFromInline let locked = LockedState(State())

    @inlinable
    init(maxConcurrent: Int, downstream: AnyObserver<Output>) {
        self.maxConcurrent = maxConcurrent
        super.init(downstream: downstream)
    }

    /// Subscribes to the source of inner sequences.
    @inlinable
    final func run(_ source: Observable<Inner>) {
        let subscription = source.run(AnyObserver { [self] event in onOuter(event) })
        let late = locked.withLock { $0.outer.assign(subscription) }
        late?.dispose()
    }

    /// Subscribes to every source of a static `merge`, in order.
    @inlinable
    final func run(sources: [Inner]) {
        locked.withLock { state in
            state.outer = .finished
            state.activeCount = sources.count
        }
        for source in sources {
            // As in RxSwift, sources after a synchronous error are not subscribed at all.
            let key = locked.withLock { $0.delivery.isClosed ? nil : $0.reserveInner() }
            guard let key else { break }
            subscribeInner(source, key: key)
        }
        let first = locked.withLock { state -> Event<Output>? in
            state.isStopped = true
            return state.activeCount == 0 ? state.delivery.submit(.completed) : nil
        }
        if let first { deliver(startingWith: first) }
    }

    @inlinable
    final func onOuter(_ event: Event<Inner>) {
        switch event {
        case .next(let inner):
            let key = locked.withLock { state -> Int? in
                // `isStopped`: a source that sends after completing is not listened to.
                guard !state.delivery.isClosed, !state.isStopped else { return nil }
                guard state.activeCount < maxConcurrent else {
                    state.waiting.enqueue(inner)
                    return nil
                }
                state.activeCount += 1
                return state.reserveInner()
            }
            if let key { subscribeInner(inner, key: key) }
        case .error(let error):
            let first = locked.withLock { $0.isStopped ? nil : $0.delivery.submit(.error(error)) }
            if let first { deliver(startingWith: first) }
        case .completed:
            let (first, outer) = locked.withLock { state -> (Event<Output>?, Disposable?) in
                guard !state.isStopped else { return (nil, nil) }
                state.isStopped = true
                // RxSwift unsubscribes from the source as soon as it completes.
                let outer = state.outer.finish()
                return (state.activeCount == 0 ? state.delivery.submit(.completed) : nil, outer)
            }
            outer?.dispose()
            if let first { deliver(startingWith: first) }
        }
    }

    /// Subscribes to `inner` under the reserved `key`.
    @inlinable
    final func subscribeInner(_ inner: Inner, key: Int) {
        let subscription = inner.asObservable().subscribe(AnyObserver { [self] event in onInner(event, key: key) })
        let late = locked.withLock { state -> Disposable? in
            // A missing key: the inner sequence finished (or the sink was disposed) meanwhile.
            guard state.inners[key] != nil else { return subscription }
            state.inners[key] = .active(subscription)
            return nil
        }
        late?.dispose()
    }

    @inlinable
    final func onInner(_ event: Event<Output>, key: Int) {
        switch event {
        // An inner sequence's key leaves `inners` with its terminal event: what a sequence
        // that breaks the grammar sends after that is dropped.
        case .next:
            let first = locked.withLock { $0.inners[key] == nil ? nil : $0.delivery.submit(event) }
            if let first { deliver(startingWith: first) }
        case .error:
            let (first, subscription) = locked.withLock { state -> (Event<Output>?, Disposable?) in
                guard var slot = state.inners.removeValue(forKey: key) else { return (nil, nil) }
                return (state.delivery.submit(event), slot.finish())
            }
            subscription?.dispose()
            if let first { deliver(startingWith: first) }
        case .completed:
            let (first, subscription, startNext) = locked.withLock {
                state -> (Event<Output>?, Disposable?, Bool) in
                guard var slot = state.inners.removeValue(forKey: key) else { return (nil, nil, false) }
                let subscription = slot.finish()
                guard !state.delivery.isClosed else { return (nil, subscription, false) }
                if state.startsOwed < state.waiting.count {
                    // The finished inner sequence hands its place to the next waiting one
                    // (one not already owed a start).
                    state.startsOwed += 1
                    return (nil, subscription, true)
                }
                state.activeCount -= 1
                let done = state.isStopped && state.activeCount == 0
                return (done ? state.delivery.submit(.completed) : nil, subscription, false)
            }
            subscription?.dispose()
            if let first { deliver(startingWith: first) }
            if startNext { startWaiting() }
        }
    }

    /// Starts the waiting inner sequences that are owed a start, unless another thread is
    /// already doing it (it will pick them up).
    @inlinable
    final func startWaiting() {
        var next = locked.withLock { state -> (Inner, Int)? in
            guard !state.isStarting, let next = state.takeOwedStart() else { return nil }
            state.isStarting = true
            return next
        }
        while let (inner, key) = next {
            subscribeInner(inner, key: key)
            next = locked.withLock { state in
                if let next = state.takeOwedStart() { return next }
                state.isStarting = false
                return nil
            }
        }
    }

    /// Delivers `first` and whatever was queued behind it, outside the lock.
    @inlinable
    final func deliver(startingWith first: Event<Output>) {
        var event: Event<Output>? = first
        while let current = event {
            forwardEvent(current)
            event = locked.withLock { $0.delivery.next() }
        }
    }

    @usableFromInline
    override func didDispose() {
        let (outer, inners) = locked.withLock { state -> (Disposable?, [Disposable]) in
            state.delivery.isClosed = true
            let outer = state.outer.finish()
            var inners: [Disposable] = []
            for key in state.inners.keys.sorted() {
                if case .active(let subscription) = state.inners[key] { inners.append(subscription) }
            }
            state.inners.removeAll()
            state.waiting = CombiningQueue()
            state.startsOwed = 0
            return (outer, inners)
        }
        outer?.dispose()
        for inner in inners { inner.dispose() }
    }
}
