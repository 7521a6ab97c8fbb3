extension ObservableType {
    /// Combines each element of this sequence with the latest element of `second`, using
    /// `resultSelector`; elements that arrive before `second` has emitted are dropped.
    ///
    /// `second` is subscribed first. Completes when this sequence completes; the completion
    /// of `second` only unsubscribes it (its latest element stays in use). An error from
    /// either sequence or from `resultSelector` ends the sequence at once.
    ///
    /// - Parameters:
    ///   - second: The sequence whose latest element is used.
    ///   - resultSelector: Called with an element of this sequence and the latest of `second`.
    public func withLatestFrom<Source: ObservableConvertibleType, ResultType>(
        _ second: Source, resultSelector: @escaping @Sendable (Element, Source.Element) throws -> ResultType
    ) -> Observable<ResultType> {
        let first = asObservable()
        let second = second.asObservable()
        return Observable<ResultType>.make { observer in
            let sink = WithLatestFromSink(select: resultSelector, downstream: observer)
            sink.run(first: first, second: second)
            return sink
        }
    }

    /// Replaces each element of this sequence with the latest element of `second`;
    /// elements that arrive before `second` has emitted are dropped.
    ///
    /// Completion and errors are as in `withLatestFrom(_:resultSelector:)`.
    public func withLatestFrom<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Source.Element> {
        withLatestFrom(second, resultSelector: { $1 })
    }
}

/// The sink of `withLatestFrom`.
///
/// Both sequences can end the output (the first by any terminal event, the second by an
/// error), possibly from different threads, so delivery goes through a `DeliveryLine` of
/// (element, latest) pairs; the selector runs outside the lock, in order.
final class WithLatestFromSink<First, Second, Result>: Sink<Result>, @unchecked Sendable {
    // Sendable: mutable state is in `locked`, behind its lock; the rest is immutable.

    struct State {
        var latest: Second?
        var second = CombiningSlot.pending
        var delivery = DeliveryLine<Event<(First, Second)>>()
    }

    let locked = LockedState(State())
    let secondGate = SourceGate()
    let select: @Sendable (First, Second) throws -> Result

    init(select: @escaping @Sendable (First, Second) throws -> Result, downstream: AnyObserver<Result>) {
        self.select = select
        super.init(downstream: downstream)
    }

    func run(first: Observable<First>, second: Observable<Second>) {
        // As in RxSwift, `second` is subscribed before the first sequence.
        let secondSubscription = second.run(AnyObserver { [self] event in onSecond(event) })
        let late = locked.withLock { $0.second.assign(secondSubscription) }
        late?.dispose()
        attach(first.run(AnyObserver { [self] event in onFirst(event) }))
    }

    func onFirst(_ event: Event<First>) {
        let first = locked.withLock { state -> Event<(First, Second)>? in
            switch event {
            case .next(let element):
                guard let latest = state.latest else { return nil }
                return state.delivery.submit(.next((element, latest)))
            case .error(let error):
                return state.delivery.submit(.error(error))
            case .completed:
                return state.delivery.submit(.completed)
            }
        }
        if let first { deliver(startingWith: first) }
    }

    func onSecond(_ event: Event<Second>) {
        // `second`'s completion does not stop the sink: what it sends after that, breaking
        // the grammar, is kept out.
        if event.isStopEvent {
            guard secondGate.close() else { return }
        } else {
            guard secondGate.isOpen else { return }
        }
        switch event {
        case .next(let element):
            locked.withLock { $0.latest = element }
        case .error(let error):
            let first = locked.withLock { $0.delivery.submit(.error(error)) }
            if let first { deliver(startingWith: first) }
        case .completed:
            let subscription = locked.withLock { $0.second.finish() }
            subscription?.dispose()
        }
    }

    /// Delivers `first` and whatever was queued behind it, outside the lock.
    func deliver(startingWith first: Event<(First, Second)>) {
        var event: Event<(First, Second)>? = first
        while let current = event {
            switch current {
            case .next(let pair):
                if !isStoppedOrDisposed {
                    do {
                        forward(.next(try select(pair.0, pair.1)))
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

    override func didDispose() {
        let second = locked.withLock { state -> Disposable? in
            state.delivery.isClosed = true
            state.latest = nil
            return state.second.finish()
        }
        second?.dispose()
    }
}
