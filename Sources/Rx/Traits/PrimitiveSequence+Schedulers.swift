extension PrimitiveSequence {
    /// The sequence with its events delivered on `scheduler`, each event one scheduled
    /// step. The source subscription ends when the terminal event has been delivered.
    public func observe(on scheduler: ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        let source = self.source
        let counter = SerialDispatchQueueObservableCounter.counting(for: scheduler)
        return PrimitiveSequence(
            raw: Observable<Element>.make { observer in
                withExtendedLifetime(counter) {}
                let sink = TraitObserveOnSink(scheduler: scheduler, downstream: observer)
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            })
    }

    /// The sequence subscribed, and later unsubscribed, on `scheduler`.
    public func subscribe(on scheduler: ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        let source = self.source
        return PrimitiveSequence(
            raw: Observable<Element>.make { observer in
                let sink = TraitDeferredSubscriptionSink(downstream: observer)
                sink.schedule.setDisposable(
                    scheduler.schedule(()) { _ in
                        let subscription = source.subscribe(AnyObserver { sink.forwardEvent($0) })
                        sink.subscription.setDisposable(
                            TraitScheduledDisposable(scheduler: scheduler, disposable: subscription))
                        return Disposables.create()
                    })
                return sink
            })
    }
}

/// One subscription of a trait `observe(on:)`: events are queued and a drain on the
/// scheduler delivers one per step.
final class TraitObserveOnSink<Element>: Sink<Element>, @unchecked Sendable {
    private struct State {
        var queue: [Event<Element>] = []
        var head = 0
        var isDraining = false
    }

    private let lock = LockedState(State())
    private let scheduler: ImmediateSchedulerType
    private let drainSchedule = SerialDisposable()

    init(scheduler: ImmediateSchedulerType, downstream: AnyObserver<Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        let startDrain = lock.withLock { state -> Bool in
            state.queue.append(event)
            defer { state.isDraining = true }
            return !state.isDraining
        }
        if startDrain {
            drainSchedule.disposable = scheduler.scheduleRecursive(()) { _, recurse in
                if self.deliverOne() { recurse(()) }
            }
        }
    }

    /// Delivers the next queued event; returns whether more are waiting.
    private func deliverOne() -> Bool {
        let event = lock.withLock { state -> Event<Element>? in
            guard state.head < state.queue.count else {
                state.isDraining = false
                return nil
            }
            let event = state.queue[state.head]
            state.head += 1
            return event
        }
        guard let event, !isDisposed else { return false }
        forwardEvent(event)
        return lock.withLock { state -> Bool in
            if state.head < state.queue.count { return true }
            state.queue.removeAll(keepingCapacity: true)
            state.head = 0
            state.isDraining = false
            return false
        }
    }

    override func didDispose() {
        drainSchedule.dispose()
    }
}

/// Disposes a subscription on a scheduler, as `subscribe(on:)` requires.
final class TraitScheduledDisposable: RxResource, Cancelable, @unchecked Sendable {
    private let scheduler: ImmediateSchedulerType
    private let disposable: LockedState<Disposable?>

    init(scheduler: ImmediateSchedulerType, disposable: Disposable) {
        self.scheduler = scheduler
        self.disposable = LockedState(disposable)
    }

    var isDisposed: Bool { disposable.withLock { $0 == nil } }

    func dispose() {
        let inner = disposable.withLock { disposable -> Disposable? in
            defer { disposable = nil }
            return disposable
        }
        guard let inner else { return }
        _ = scheduler.schedule(inner) { inner in
            inner.dispose()
            return Disposables.create()
        }
    }
}
