extension ObservableType {
    /// Resubscribes to the source after an error of type `Error` when the trigger sequence
    /// emits an element.
    ///
    /// `notificationHandler` is called once per subscription with the sequence of the
    /// source's errors; it returns the trigger. After each error the source waits for the
    /// trigger: an element resubscribes, `completed` completes the sequence, an error fails
    /// it. Errors that are not of type `Error` end the sequence at once.
    ///
    /// - Parameter notificationHandler: Makes the trigger from the sequence of errors.
    /// - Returns: The source's elements, over every attempt.
    public func retry<TriggerObservable: ObservableType, Error: Swift.Error>(
        when notificationHandler: @escaping @Sendable (Observable<Error>) -> TriggerObservable
    ) -> Observable<Element> {
        let source = asObservable()
        // Built by a closure made here, so that the trigger's conformance is used outside the
        // `@Sendable` closure; the handler itself is `@Sendable`.
        let subscribe = UncheckedSendable { (observer: AnyObserver<Element>) -> Disposable in
            let sink = RetryWhenSink<Element, Error>(source: source, downstream: observer)
            sink.run(trigger: notificationHandler(sink.errors).asObservable())
            return sink
        }
        return Observable<Element>.make { observer in subscribe.value(observer) }
    }

    /// Resubscribes to the source after an error when the trigger sequence emits an element.
    ///
    /// `notificationHandler` is called once per subscription with the sequence of the
    /// source's errors; it returns the trigger. After each error the source waits for the
    /// trigger: an element resubscribes, `completed` completes the sequence, an error fails
    /// it.
    ///
    /// - Parameter notificationHandler: Makes the trigger from the sequence of errors.
    /// - Returns: The source's elements, over every attempt.
    public func retry<TriggerObservable: ObservableType>(
        when notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> TriggerObservable
    ) -> Observable<Element> {
        let source = asObservable()
        // Built by a closure made here, so that the trigger's conformance is used outside the
        // `@Sendable` closure; the handler itself is `@Sendable`.
        let subscribe = UncheckedSendable { (observer: AnyObserver<Element>) -> Disposable in
            let sink = RetryWhenSink<Element, Swift.Error>(source: source, downstream: observer)
            sink.run(trigger: notificationHandler(sink.errors).asObservable())
            return sink
        }
        return Observable<Element>.make { observer in subscribe.value(observer) }
    }

    /// Resubscribes to the source after an error of type `Error` when the trigger sequence
    /// emits an element.
    @available(*, deprecated, renamed: "retry(when:)")
    public func retryWhen<TriggerObservable: ObservableType, Error: Swift.Error>(
        _ notificationHandler: @escaping @Sendable (Observable<Error>) -> TriggerObservable
    ) -> Observable<Element> {
        retry(when: notificationHandler)
    }

    /// Resubscribes to the source after an error when the trigger sequence emits an element.
    @available(*, deprecated, renamed: "retry(when:)")
    public func retryWhen<TriggerObservable: ObservableType>(
        _ notificationHandler: @escaping @Sendable (Observable<Swift.Error>) -> TriggerObservable
    ) -> Observable<Element> {
        retry(when: notificationHandler)
    }
}

/// The sink of `retry(when:)`.
final class RetryWhenSink<Element, Failure: Swift.Error>: Sink<Element>, @unchecked Sendable {
    // Sendable: mutable state is behind the lock; `errors` is a thread-safe subject.
    private let source: Observable<Element>
    /// The source's errors, for the notification handler.
    let errors = PublishSubject<Failure>()

    private struct State {
        var subscription = ErrorsDisposableSlot()
        var trigger = ErrorsDisposableSlot()
        /// The source failed and waits for the trigger (`isWaiting`), which may already have
        /// asked for the next attempt (`isResubscribing`) if that attempt waits on the
        /// trampoline. While waiting, the trigger's terminal event ends the sequence.
        var isWaiting = false
        var isResubscribing = false
        /// How the trigger ended, while nothing waited for it: the next failure ends the
        /// sequence this way (RxSwift replays it from its notifier subject).
        var triggerTerminal: Event<Element>?
    }

    private let shared = LockedState(State())

    init(source: Observable<Element>, downstream: AnyObserver<Element>) {
        self.source = source
        super.init(downstream: downstream)
    }

    /// Subscribes to the trigger, then to the source, as RxSwift does.
    func run(trigger: Observable<some Any>) {
        let disposable = trigger.subscribe(AnyObserver { self.onTrigger($0) })
        shared.withLock { $0.trigger.set(disposable, generation: 0) }?.dispose()
        subscribeSource()
    }

    private func subscribeSource() {
        guard !isDisposed else { return }
        let (generation, previous) = shared.withLock { state -> (Int, Disposable?) in
            state.isWaiting = false
            state.isResubscribing = false
            return state.subscription.advance()
        }
        previous?.dispose()
        // Each attempt has its own gate: a failed attempt that keeps sending must not reach
        // downstream nor ask the trigger again.
        let attempt = SourceGate()
        let disposable = source.subscribe(AnyObserver { self.on($0, attempt: attempt) })
        shared.withLock { $0.subscription.set(disposable, generation: generation) }?.dispose()
    }

    private func on(_ event: Event<Element>, attempt: SourceGate) {
        switch event {
        case .next:
            if attempt.isOpen { forward(event) }
        case .completed:
            if attempt.close() { forwardTerminal(event) }
        case .error(let error):
            guard attempt.close(), !isStoppedOrDisposed else { return }
            guard let failure = error as? Failure else {
                forwardTerminal(event)
                return
            }
            let (failed, terminal) = shared.withLock { state -> (Disposable?, Event<Element>?) in
                let failed = state.subscription.advance().previous
                if let terminal = state.triggerTerminal { return (failed, terminal) }
                state.isWaiting = true
                return (failed, nil)
            }
            failed?.dispose()
            if let terminal {
                forwardTerminal(terminal)
            } else {
                errors.on(.next(failure))
            }
        }
    }

    private func onTrigger<Trigger>(_ event: Event<Trigger>) {
        let terminal: Event<Element>
        switch event {
        case .next:
            let resubscribe = shared.withLock { state -> Bool in
                // An element that comes while the source is running, or while the next
                // attempt is already on its way, is not a retry request.
                guard state.isWaiting, !state.isResubscribing else { return false }
                state.isResubscribing = true
                return true
            }
            guard resubscribe else { return }
            // On the trampoline, as in `retry()`: a trigger that answers synchronously must
            // not nest a source that fails synchronously inside the previous attempt.
            CurrentThreadScheduler.trampoline { self.subscribeSource() }
            return
        case .error(let error):
            terminal = .error(error)
        case .completed:
            terminal = .completed
        }
        // The trigger is over: release its subscription, as a terminal event does upstream.
        let (endNow, finishedTrigger) = shared.withLock { state -> (Bool, Disposable?) in
            let finishedTrigger = state.trigger.dispose()
            if state.isWaiting { return (true, finishedTrigger) }
            if state.triggerTerminal == nil { state.triggerTerminal = terminal }
            return (false, finishedTrigger)
        }
        finishedTrigger?.dispose()
        if endNow { forwardTerminal(terminal) }
    }

    override func didDispose() {
        let (source, trigger) = shared.withLock { ($0.subscription.dispose(), $0.trigger.dispose()) }
        source?.dispose()
        trigger?.dispose()
    }
}
