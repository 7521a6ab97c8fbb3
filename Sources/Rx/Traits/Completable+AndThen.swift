extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// `second`, subscribed once this completable has completed. An error from this
    /// completable ends the result without subscribing to `second`.
    public func andThen<Element>(_ second: Single<Element>) -> Single<Element> {
        Single(raw: Observable.completableAndThen(primitiveSequence.source, second.source))
    }

    /// `second`, subscribed once this completable has completed.
    public func andThen<Element>(_ second: Maybe<Element>) -> Maybe<Element> {
        Maybe(raw: Observable.completableAndThen(primitiveSequence.source, second.source))
    }

    /// `second`, subscribed once this completable has completed.
    public func andThen(_ second: Completable) -> Completable {
        Completable(raw: Observable.completableAndThen(primitiveSequence.source, second.source))
    }

    /// `second`, subscribed once this completable has completed.
    public func andThen<Element>(_ second: Observable<Element>) -> Observable<Element> {
        Observable.completableAndThen(primitiveSequence.source, second)
    }
}

extension Observable {
    fileprivate static func completableAndThen(_ first: Observable<Never>, _ second: Observable<Element>)
        -> Observable<Element>
    {
        make { observer in
            let sink = CompletableAndThenSink(second: second, downstream: observer)
            let slot = SingleAssignmentDisposable()
            sink.current.disposable = slot
            slot.setDisposable(first.run(AnyObserver { sink.onFirst($0) }))
            return sink
        }
    }
}

/// One subscription of `andThen`: the completable, then the second sequence.
final class CompletableAndThenSink<Element>: Sink<Element>, @unchecked Sendable {
    private let second: Observable<Element>
    /// The completable's subscription, then the second one's (replacing it releases the
    /// completable as soon as it has completed).
    let current = SerialDisposable()
    // The completable's end does not stop the sink, so it is kept apart.
    private let firstGate = SourceGate()

    init(second: Observable<Element>, downstream: AnyObserver<Element>) {
        self.second = second
        super.init(downstream: downstream)
    }

    func onFirst(_ event: Event<Never>) {
        guard firstGate.close() else { return }
        switch event {
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            guard !isStoppedOrDisposed else { return }
            current.disposable = second.subscribe(AnyObserver { self.forwardEvent($0) })
        }
    }

    override func didDispose() {
        current.dispose()
    }
}
