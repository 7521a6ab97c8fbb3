extension ObservableType {
    /// This sequence as a `Single`: its one element, delivered with `completed` when the
    /// sequence completes.
    ///
    /// Completing without an element fails with `RxError.noElements`; a second element
    /// fails at once with `RxError.moreThanOneElement` and disposes the subscription.
    public func asSingle() -> Single<Element> {
        Single(raw: Observable<Element>.traitSingle(asObservable(), requiresElement: true))
    }

    /// This sequence as a `Maybe`: its element, if any, delivered with `completed` when
    /// the sequence completes.
    ///
    /// A second element fails at once with `RxError.moreThanOneElement` and disposes the
    /// subscription.
    public func asMaybe() -> Maybe<Element> {
        Maybe(raw: Observable<Element>.traitSingle(asObservable(), requiresElement: false))
    }

    /// The first element, or `nil` if the sequence completes without one. The
    /// subscription is disposed as soon as the first element arrives.
    public func first() -> Single<Element?> {
        let source = asObservable()
        return Single(
            raw: Observable<Element?>.make { observer in
                let sink = TraitFirstSink<Element>(downstream: observer)
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            })
    }

    /// This sequence as a `Completable`: its elements are ignored, its termination kept.
    public func asCompletable() -> Completable {
        completableIgnoringElements()
    }

    fileprivate func completableIgnoringElements() -> Completable {
        let source = asObservable()
        return Completable(
            raw: Observable<Never>.make { observer in
                let sink = TraitIgnoreElementsSink<Element>(downstream: observer)
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            })
    }
}

extension ObservableType where Element == Never {
    /// This sequence as a `Completable`: its termination.
    ///
    /// RxSwift's declaration. It lets the element type be inferred as `Never` where
    /// nothing else fixes it: `scheduler.createColdObservable([.completed(20)]).asCompletable()`.
    public func asCompletable() -> Completable {
        completableIgnoringElements()
    }
}

extension Observable {
    fileprivate static func traitSingle(_ source: Observable<Element>, requiresElement: Bool) -> Observable<Element> {
        make { observer in
            let sink = TraitAsSingleSink(requiresElement: requiresElement, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// One subscription of `asSingle` / `asMaybe`.
///
/// Sendable: `element` is only touched by `on`, which the Rx grammar calls serially.
final class TraitAsSingleSink<Element>: Sink<Element>, @unchecked Sendable {
    private let requiresElement: Bool
    private var element: Element?

    init(requiresElement: Bool, downstream: AnyObserver<Element>) {
        self.requiresElement = requiresElement
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let value):
            guard !isStoppedOrDisposed else { return }
            if element != nil {
                element = nil
                forwardTerminal(.error(RxError.moreThanOneElement))
                return
            }
            element = value
        case .error:
            forwardTerminal(event)
        case .completed:
            // `element` is set exactly when an element arrived (a `nil` one too, when
            // `Element` is itself optional: it is then stored as `.some(nil)`).
            if let element {
                self.element = nil
                forward(.next(element))
                forwardTerminal(.completed)
            } else if requiresElement {
                forwardTerminal(.error(RxError.noElements))
            } else {
                forwardTerminal(.completed)
            }
        }
    }
}

/// One subscription of `first()`.
final class TraitFirstSink<Element>: Sink<Element?>, @unchecked Sendable {
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            forward(.next(element))
            forwardTerminal(.completed)
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            forward(.next(nil))
            forwardTerminal(.completed)
        }
    }
}

/// One subscription of `asCompletable()`: only the terminal event goes through.
final class TraitIgnoreElementsSink<Element>: Sink<Never>, @unchecked Sendable {
    func on(_ event: Event<Element>) {
        switch event {
        case .next: break
        case .error(let error): forwardTerminal(.error(error))
        case .completed: forwardTerminal(.completed)
        }
    }
}
