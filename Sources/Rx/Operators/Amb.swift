extension ObservableType {
    /// Mirrors whichever of this sequence and `right` emits first (an element, an error or
    /// completion); the other one is unsubscribed at that moment.
    public func amb<O2: ObservableType>(_ right: O2) -> Observable<Element> where O2.Element == Element {
        ambSources([asObservable(), right.asObservable()])
    }

    /// Mirrors whichever sequence of `sequence` emits first (an element, an error or
    /// completion); all the others are unsubscribed at that moment.
    ///
    /// The sources are subscribed in order. With no sources, the sequence never emits.
    public static func amb<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Observable<Element>
    where Sequence.Element == Observable<Element> {
        ambSources(Array(sequence))
    }
}

private func ambSources<Element>(_ sources: [Observable<Element>]) -> Observable<Element> {
    Observable<Element>.make { observer in
        let sink = AmbSink(sourceCount: sources.count, downstream: observer)
        for (index, source) in sources.enumerated() {
            sink.subscribe(source, at: index)
        }
        return sink
    }
}

/// The sink of `amb`. The race is decided by one compare-and-swap; after that, the
/// winner's events go straight through without a lock.
final class AmbSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: mutable state is the atomic `winner` and `subscriptions`, behind its lock.

    /// The index of the source that emitted first, or -1 while the race is open.
    let winner = AtomicInt(-1)
    let subscriptions: LockedState<[CombiningSlot]>

    init(sourceCount: Int, downstream: AnyObserver<Element>) {
        subscriptions = LockedState(Array(repeating: .pending, count: sourceCount))
        super.init(downstream: downstream)
    }

    func subscribe(_ source: Observable<Element>, at index: Int) {
        let subscription = source.run(AnyObserver { [self] event in on(event, from: index) })
        let late = subscriptions.withLock { $0[index].assign(subscription) }
        late?.dispose()
    }

    func on(_ event: Event<Element>, from index: Int) {
        let current = winner.load()
        if current != index {
            guard current == -1, winner.compareExchange(expected: -1, desired: index) else { return }
            // As in RxSwift, the losers are unsubscribed before the first event goes out.
            let losers = subscriptions.withLock { slots -> [Disposable] in
                var losers: [Disposable] = []
                for other in slots.indices where other != index {
                    if let subscription = slots[other].finish() { losers.append(subscription) }
                }
                return losers
            }
            for loser in losers { loser.dispose() }
        }
        forwardEvent(event)
    }

    override func didDispose() {
        let all = subscriptions.withLock { $0.finishAll() }
        for subscription in all { subscription.dispose() }
    }
}
