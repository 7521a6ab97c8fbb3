extension PrimitiveSequence {
    /// On error, continues with the sequence that `handler` makes from the error. An error
    /// thrown by `handler` ends the sequence with it.
    public func `catch`(_ handler: @escaping @Sendable (Swift.Error) throws -> PrimitiveSequence<Trait, Element>)
        -> PrimitiveSequence<Trait, Element>
    {
        PrimitiveSequence(raw: Observable.traitCatch(source) { try handler($0).source })
    }

    /// On error, subscribes again, up to `maxAttemptCount` subscriptions in all (the first
    /// included); the last error ends the sequence. `retry(2)` retries once.
    ///
    /// As in RxSwift, a count of zero or less completes at once without subscribing.
    /// Resubscription happens on the same stack only once that stack has unwound, so a
    /// source that fails synchronously does not grow it.
    public func retry(_ maxAttemptCount: Int) -> PrimitiveSequence<Trait, Element> {
        let source = self.source
        return PrimitiveSequence(
            raw: Observable<Element>.make { observer in
                let sink = TraitRetrySink(source: source, maxAttemptCount: maxAttemptCount, downstream: observer)
                sink.start()
                return sink
            })
    }

    /// On an error of type `Error`, subscribes again when the sequence that
    /// `notificationHandler` made from the errors emits an element; when it completes or
    /// fails, the result does the same. Errors of other types end the sequence.
    ///
    /// `notificationHandler` runs once per subscription, before the source is subscribed.
    public func retry<TriggerObservable: ObservableType, Error: Swift.Error>(
        when notificationHandler: @escaping @Sendable (Observable<Error>) -> TriggerObservable
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable.traitRetryWhen(source, Observable<Element>.traitTriggerFactory(notificationHandler)))
    }

    /// On error, subscribes again when the sequence that `notificationHandler` made from
    /// the errors emits an element; when it completes or fails, the result does the same.
    public func retry<TriggerObservable: ObservableType>(
        when notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> TriggerObservable
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable.traitRetryWhen(source, Observable<Element>.traitTriggerFactory(notificationHandler)))
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// On error, succeeds with `element` instead.
    public func catchAndReturn(_ element: Element) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable.traitCatchAndReturn(primitiveSequence.source, element))
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// On error, succeeds with `element` instead.
    public func catchAndReturn(_ element: Element) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable.traitCatchAndReturn(primitiveSequence.source, element))
    }
}

extension Observable {
    /// `catch` for traits and `Infallible` (the `Observable` operator is not ours to write).
    static func traitCatch(
        _ source: Observable<Element>, _ handler: @escaping @Sendable (Swift.Error) throws -> Observable<Element>
    ) -> Observable<Element> {
        make { observer in
            let sink = TraitCatchSink(handler: handler, downstream: observer)
            sink.run(source)
            return sink
        }
    }

    /// `catch` that continues with `element`.
    static func traitCatchAndReturn(_ source: Observable<Element>, _ element: Element) -> Observable<Element> {
        // The element is the caller's value, handed to observers as is.
        let box = UncheckedSendable(element)
        return traitCatch(source) { _ in Observable<Element>.just(box.value) }
    }

    /// Erases the trigger's type, so that the subscription closure needs no conformance
    /// of it (the handler is `@Sendable`; the box only carries the erasing closure).
    fileprivate static func traitTriggerFactory<Trigger: ObservableType, Failure: Swift.Error>(
        _ notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> UncheckedSendable<(Observable<Failure>) -> Observable<Trigger.Element>> {
        UncheckedSendable({ notificationHandler($0).asObservable() })
    }

    fileprivate static func traitRetryWhen<TriggerElement, Failure: Swift.Error>(
        _ source: Observable<Element>,
        _ makeTrigger: UncheckedSendable<(Observable<Failure>) -> Observable<TriggerElement>>
    ) -> Observable<Element> {
        make { observer in
            let sink = TraitRetryWhenSink<Element, TriggerElement, Failure>(source: source, downstream: observer)
            sink.start(trigger: makeTrigger.value(sink.errors))
            return sink
        }
    }
}

/// One subscription of a trait `catch`: the source, then the handler's sequence.
///
/// The source's error ends the source: its subscription is disposed, and anything it
/// still sends is dropped, so only the handler's sequence reaches downstream after it.
final class TraitCatchSink<Element>: Sink<Element>, @unchecked Sendable {
    private let handler: @Sendable (Swift.Error) throws -> Observable<Element>
    private let sourceGate = SourceGate()
    private let sourceSubscription = SingleAssignmentDisposable()
    private let fallback = SingleAssignmentDisposable()

    init(handler: @escaping @Sendable (Swift.Error) throws -> Observable<Element>, downstream: AnyObserver<Element>) {
        self.handler = handler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        sourceSubscription.setDisposable(source.run(AnyObserver { self.onSource($0) }))
    }

    private func onSource(_ event: Event<Element>) {
        switch event {
        case .next:
            if sourceGate.isOpen { forward(event) }
        case .completed:
            if sourceGate.close() { forwardTerminal(event) }
        case .error(let error):
            guard sourceGate.close(), !isStoppedOrDisposed else { return }
            sourceSubscription.dispose()
            do {
                let next = try handler(error)
                fallback.setDisposable(next.subscribe(AnyObserver { self.forwardEvent($0) }))
            } catch {
                forwardTerminal(.error(error))
            }
        }
    }

    override func didDispose() {
        sourceSubscription.dispose()
        fallback.dispose()
    }
}

/// One subscription of a trait `retry(_:)`.
///
/// Subscribing happens in a loop guarded by `gate`: a failure during a subscription only
/// asks for another round, which the loop runs once the failed subscription returned.
final class TraitRetrySink<Element>: Sink<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let maxAttemptCount: Int
    private let failures = AtomicInt(0)
    private let gate = AtomicInt(0)
    private let current = SerialDisposable()

    init(source: Observable<Element>, maxAttemptCount: Int, downstream: AnyObserver<Element>) {
        self.source = source
        self.maxAttemptCount = maxAttemptCount
        super.init(downstream: downstream)
    }

    func start() {
        if maxAttemptCount <= 0 {
            forwardTerminal(.completed)
        } else {
            subscribeToSource()
        }
    }

    private func subscribeToSource() {
        guard gate.add(1) == 1 else { return }
        repeat {
            guard !isStoppedOrDisposed else { return }
            let slot = SingleAssignmentDisposable()
            current.disposable = slot
            // Each attempt has its own gate: a failed attempt that keeps sending must not
            // reach downstream nor count as another failure.
            let attempt = SourceGate()
            slot.setDisposable(source.subscribe(AnyObserver { self.on($0, attempt: attempt) }))
        } while gate.add(-1) != 0
    }

    private func on(_ event: Event<Element>, attempt: SourceGate) {
        switch event {
        case .next:
            if attempt.isOpen { forward(event) }
        case .completed:
            if attempt.close() { forwardTerminal(event) }
        case .error:
            guard attempt.close() else { return }
            if failures.add(1) < maxAttemptCount {
                subscribeToSource()
            } else {
                forwardTerminal(event)
            }
        }
    }

    override func didDispose() {
        current.dispose()
    }
}

/// One subscription of a trait `retry(when:)`.
///
/// As in RxSwift: the trigger made from `errors` is subscribed first, into `notifier`;
/// each source error of the right type subscribes an observer to `notifier` and is then
/// sent to `errors`. The trigger's next element resubscribes the source, its completion
/// or error ends the result. Source and trigger may deliver from different threads, so
/// downstream delivery goes through a `DeliveryLine`.
final class TraitRetryWhenSink<Element, TriggerElement, Failure: Swift.Error>: Sink<Element>, @unchecked Sendable {
    let errors = PublishSubject<Failure>()
    private let notifier = PublishSubject<TriggerElement>()
    private let source: Observable<Element>
    private let delivery = LockedState(DeliveryLine<Event<Element>>())
    private let gate = AtomicInt(0)
    private let sourceSubscription = SerialDisposable()
    private let triggerObservation = SerialDisposable()
    private let triggerSubscription = SingleAssignmentDisposable()

    init(source: Observable<Element>, downstream: AnyObserver<Element>) {
        self.source = source
        super.init(downstream: downstream)
    }

    func start(trigger: Observable<TriggerElement>) {
        triggerSubscription.setDisposable(trigger.subscribe(notifier))
        subscribeToSource()
    }

    private func subscribeToSource() {
        guard gate.add(1) == 1 else { return }
        repeat {
            guard !isStoppedOrDisposed else { return }
            // The trigger observer belonged to the failed attempt: later trigger elements
            // are not for this one.
            triggerObservation.disposable = Disposables.create()
            let slot = SingleAssignmentDisposable()
            sourceSubscription.disposable = slot
            // Each attempt has its own gate: a failed attempt that keeps sending must not
            // reach downstream nor ask the trigger again.
            let attempt = SourceGate()
            slot.setDisposable(source.subscribe(AnyObserver { self.onSource($0, attempt: attempt) }))
        } while gate.add(-1) != 0
    }

    private func onSource(_ event: Event<Element>, attempt: SourceGate) {
        switch event {
        case .next:
            if attempt.isOpen { deliver(event) }
        case .completed:
            if attempt.close() { deliver(event) }
        case .error(let error):
            guard attempt.close() else { return }
            guard let failure = error as? Failure else {
                deliver(event)
                return
            }
            sourceSubscription.disposable = Disposables.create()
            triggerObservation.disposable = notifier.subscribe(AnyObserver { self.onTrigger($0) })
            errors.on(.next(failure))
        }
    }

    private func onTrigger(_ event: Event<TriggerElement>) {
        switch event {
        case .next: subscribeToSource()
        case .error(let error): deliver(.error(error))
        case .completed: deliver(.completed)
        }
    }

    private func deliver(_ event: Event<Element>) {
        let first = delivery.withLock { $0.submit(event) }
        delivery.drain(startingWith: first, queue: \.self) { forwardEvent($0) }
    }

    override func didDispose() {
        sourceSubscription.dispose()
        triggerObservation.dispose()
        triggerSubscription.dispose()
    }
}
