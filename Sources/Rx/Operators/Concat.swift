extension ObservableType where Element: InnerObservableConvertibleType {
    /// Emits the elements of each inner sequence in turn: the next inner sequence is
    /// subscribed only once the previous one has completed.
    ///
    /// Inner sequences that arrive meanwhile wait, in order. Completes when the source and
    /// every inner sequence have completed; an error from any of them ends the sequence.
    /// This is `merge(maxConcurrent: 1)`.
    public func concat() -> Observable<Element.Element> {
        mergeInner(asObservable(), maxConcurrent: 1)
    }
}

extension ObservableType {
    /// Emits the elements of this sequence, then, once it has completed, those of `second`.
    ///
    /// An error from either sequence ends the sequence at once.
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Element>
    where Source.Element == Element {
        concatArray([asObservable(), second.asObservable()])
    }

    /// Emits the elements of each sequence of `sequence` in turn: the next sequence is
    /// subscribed when the previous one completes (and unsubscribed before that).
    ///
    /// `sequence` is iterated lazily, one step per completed source, so it may be long or
    /// generated on demand. Completes after the last source completes (at once if there is
    /// none); an error from a source ends the sequence.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element>
    where Sequence.Element == Observable<Element> {
        concatSequence(sequence)
    }

    /// Emits the elements of each sequence of `collection` in turn: the next sequence is
    /// subscribed when the previous one completes.
    ///
    /// `collection` is iterated by each subscription, one step per completed source, as in
    /// RxSwift: a lazy collection builds each source only when its turn comes (so a source
    /// may itself be a `concat` of a collection built the same way, without end). Completes
    /// after the last source completes (at once if there is none); an error from a source
    /// ends the sequence.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Observable<Element>
    where Collection.Element == Observable<Element> {
        concatCollection(collection)
    }

    /// Emits the elements of each of `sources` in turn: the next one is subscribed when the
    /// previous one completes.
    ///
    /// Completes after the last source completes (at once if there is none); an error from
    /// a source ends the sequence.
    public static func concat(_ sources: Observable<Element>...) -> Observable<Element> {
        concatArray(sources)
    }
}

private func concatArray<Element>(_ sources: [Observable<Element>]) -> Observable<Element> {
    Observable<Element>.make { observer in
        let sink = ConcatSink(iterator: sources.makeIterator(), downstream: observer)
        sink.moveNext()
        return sink
    }
}

private func concatCollection<Sources: Collection, Element>(_ sources: Sources) -> Observable<Element>
where Sources.Element == Observable<Element> {
    // A fresh iterator per subscription, of the collection's own type (an array's is the
    // same as `concatArray`'s). The collection is the caller's value, read by each
    // subscription's iterator under its moving role, hence the box.
    let subscribe = UncheckedSendable({ (observer: AnyObserver<Element>) -> Disposable in
        let sink = ConcatSink(iterator: sources.makeIterator(), downstream: observer)
        sink.moveNext()
        return sink
    })
    return Observable<Element>.make { subscribe.value($0) }
}

private func concatSequence<Sources: Sequence, Element>(_ sources: Sources) -> Observable<Element>
where Sources.Element == Observable<Element> {
    // A fresh iterator per subscription, as in RxSwift. The sequence is the caller's value,
    // iterated by one subscription at a time (under its moving role), hence the box.
    let makeIterator = UncheckedSendable({ AnyIterator(sources.makeIterator()) })
    return Observable<Element>.make { observer in
        let sink = ConcatSink(iterator: makeIterator.value(), downstream: observer)
        sink.moveNext()
        return sink
    }
}

/// The sink of the static `concat` and of `concat(_:)`.
///
/// Moving to the next source is done by whichever thread holds the "moving" role, in a
/// loop: a source that completes during its own subscription only asks for another move,
/// so a long run of synchronous sources does not grow the stack.
final class ConcatSink<Iterator: IteratorProtocol, Output>: Sink<Output>, @unchecked Sendable
where Iterator.Element == Observable<Output> {
    // Sendable: mutable state is in `locked`, except `iterator`, which only the thread
    // holding the moving role touches (the role is taken and given up under the lock).

    struct State {
        var current = CombiningSlot.finished
        var isMoving = false
        var isMovePending = false
        var isDisposed = false
    }

    let locked = LockedState(State())
    var iterator: Iterator

    init(iterator: Iterator, downstream: AnyObserver<Output>) {
        self.iterator = iterator
        super.init(downstream: downstream)
    }

    /// Unsubscribes the finished source and subscribes the next one, or completes.
    func moveNext() {
        let isMover = locked.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            state.isMovePending = true
            guard !state.isMoving else { return false }
            state.isMoving = true
            return true
        }
        guard isMover else { return }
        while true {
            let (proceed, previous) = locked.withLock { state -> (Bool, Disposable?) in
                guard state.isMovePending, !state.isDisposed else {
                    state.isMoving = false
                    return (false, nil)
                }
                state.isMovePending = false
                let previous = state.current.finish()
                state.current = .pending
                return (true, previous)
            }
            guard proceed else { return }
            // RxSwift unsubscribes the finished source before subscribing the next one.
            previous?.dispose()
            // The iterator is user code: it runs outside the lock, under the moving role.
            guard let next = iterator.next() else {
                forwardTerminal(.completed)
                return
            }
            // Each source has its own gate: a completed source that keeps sending must not
            // reach downstream nor complete the source after it.
            let gate = SourceGate()
            let subscription = next.subscribe(AnyObserver { [self] event in on(event, gate: gate) })
            let late = locked.withLock { $0.current.assign(subscription) }
            late?.dispose()
        }
    }

    func on(_ event: Event<Output>, gate: SourceGate) {
        switch event {
        case .next: if gate.isOpen { forward(event) }
        case .error: if gate.close() { forwardTerminal(event) }
        case .completed: if gate.close() { moveNext() }
        }
    }

    override func didDispose() {
        let current = locked.withLock { state -> Disposable? in
            state.isDisposed = true
            return state.current.finish()
        }
        current?.dispose()
    }
}
