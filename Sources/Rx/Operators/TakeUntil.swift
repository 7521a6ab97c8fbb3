/// Whether `take(until:behavior:)` and `take(while:behavior:)` also emit the element that
/// ends the sequence.
public enum TakeBehavior: Sendable {
    /// Emit the element that ends the sequence, then complete.
    case inclusive
    /// Complete without emitting the element that ends the sequence.
    case exclusive
}

extension ObservableType {
    /// The source's elements until `other` emits an element; then `completed`.
    ///
    /// An error from `other` ends the sequence with that error; `other` completing without
    /// an element changes nothing. `other` is subscribed before the source.
    public func take<Other: ObservableType>(until other: Other) -> Observable<Element> {
        let source = asObservable()
        let other = other.asObservable()
        return Observable<Element>.make { observer in
            let sink = TakeUntilSink(downstream: observer)
            sink.otherSubscription.setDisposable(other.run(AnyObserver { sink.onOther($0) }))
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// The source's elements until one satisfies `predicate`; then `completed`.
    ///
    /// - Parameters:
    ///   - predicate: Tested on each element; a thrown error ends the sequence with it.
    ///   - behavior: `.inclusive` also emits the element that satisfied `predicate`.
    public func take(
        until predicate: @escaping @Sendable (Element) throws -> Bool,
        behavior: TakeBehavior = .exclusive
    ) -> Observable<Element> {
        takePredicate(predicate, stopsWhen: true, behavior: behavior)
    }

    /// The source's elements while they satisfy `predicate`; `completed` at the first one
    /// that does not.
    ///
    /// - Parameters:
    ///   - predicate: Tested on each element; a thrown error ends the sequence with it.
    ///   - behavior: `.inclusive` also emits the first element that failed `predicate`.
    public func take(
        while predicate: @escaping @Sendable (Element) throws -> Bool,
        behavior: TakeBehavior = .exclusive
    ) -> Observable<Element> {
        takePredicate(predicate, stopsWhen: false, behavior: behavior)
    }

    /// The source's elements until `other` emits an element; then `completed`.
    @available(*, deprecated, renamed: "take(until:)")
    public func takeUntil<Other: ObservableType>(_ other: Other) -> Observable<Element> {
        take(until: other)
    }

    /// The source's elements until one satisfies `predicate`; then `completed`.
    @available(*, deprecated, renamed: "take(until:behavior:)")
    public func takeUntil(_ behavior: TakeBehavior, predicate: @escaping @Sendable (Element) throws -> Bool)
        -> Observable<Element>
    {
        take(until: predicate, behavior: behavior)
    }

    /// The source's elements while they satisfy `predicate`; then `completed`.
    @available(*, deprecated, renamed: "take(while:)")
    public func takeWhile(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        take(while: predicate, behavior: .exclusive)
    }

    /// `take(until:)` and `take(while:)` share one sink; the sequence stops at the first
    /// element for which the predicate returns `stopsWhen`.
    private func takePredicate(
        _ predicate: @escaping @Sendable (Element) throws -> Bool, stopsWhen: Bool, behavior: TakeBehavior
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = TakeUntilPredicateSink(
                predicate: predicate, stopsWhen: stopsWhen, isInclusive: behavior == .inclusive, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// `take(until: other)`: `other`'s events race the source's on real schedulers, so both go
/// through one delivery queue.
final class TakeUntilSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the delivery queue is behind its lock; the disposable is thread-safe.
    private let delivery = LockedState(DeliveryLine<Event<Element>>())
    let otherSubscription = SingleAssignmentDisposable()
    // `other`'s completion does not stop the sink: what `other` sends after it, breaking
    // the grammar, is kept out by this gate.
    private let otherGate = SourceGate()

    func on(_ event: Event<Element>) {
        deliver(event)
    }

    func onOther<Other>(_ event: Event<Other>) {
        if event.isStopEvent {
            guard otherGate.close() else { return }
        } else {
            guard otherGate.isOpen else { return }
        }
        switch event {
        case .next: deliver(.completed)
        case .error(let error): deliver(.error(error))
        // `other` is done without firing: only its subscription ends.
        case .completed: otherSubscription.dispose()
        }
    }

    private func deliver(_ event: Event<Element>) {
        let first = delivery.withLock { $0.submit(event) }
        delivery.drain(startingWith: first, queue: \.self) { forwardEvent($0) }
    }

    override func didDispose() {
        otherSubscription.dispose()
    }
}

final class TakeUntilPredicateSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `isRunning` is only touched by upstream events, which arrive serially.
    private let predicate: @Sendable (Element) throws -> Bool
    private let stopsWhen: Bool
    private let isInclusive: Bool
    private var isRunning = true

    init(
        predicate: @escaping @Sendable (Element) throws -> Bool, stopsWhen: Bool, isInclusive: Bool,
        downstream: AnyObserver<Element>
    ) {
        self.predicate = predicate
        self.stopsWhen = stopsWhen
        self.isInclusive = isInclusive
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard isRunning, !isStoppedOrDisposed else { return }
            do {
                isRunning = try predicate(element) != stopsWhen
            } catch {
                forwardTerminal(.error(error))
                return
            }
            // `isRunning` is settled before forwarding, so an element sent back in from
            // downstream after the last one is dropped.
            if isRunning || isInclusive {
                forward(event)
            }
            if !isRunning {
                forwardTerminal(.completed)
            }
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}
