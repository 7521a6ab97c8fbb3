extension ObservableType {
    /// Fails with `RxError.timeout` when the source emits nothing for `dueTime`.
    ///
    /// The timer starts at subscription and restarts after each element.
    ///
    /// - Parameters:
    ///   - dueTime: The longest silence allowed, before the first element and between two.
    ///   - scheduler: The scheduler that runs the timer.
    /// - Returns: The source, or `RxError.timeout` if it falls silent too long.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        timeout(dueTime, other: Observable<Element>.error(RxError.timeout), scheduler: scheduler)
    }

    /// Switches to `other` when the source emits nothing for `dueTime`.
    ///
    /// The timer starts at subscription and restarts after each element. When it fires,
    /// the source is disposed and `other` is subscribed in its place.
    ///
    /// - Parameters:
    ///   - dueTime: The longest silence allowed, before the first element and between two.
    ///   - other: The sequence that continues after a timeout.
    ///   - scheduler: The scheduler that runs the timer.
    /// - Returns: The source, or `other` from the time the source fell silent too long.
    public func timeout<Source: ObservableConvertibleType>(
        _ dueTime: RxTimeInterval, other: Source, scheduler: SchedulerType
    ) -> Observable<Element> where Element == Source.Element {
        let source = asObservable()
        let other = other.asObservable()
        return Observable<Element>.make { observer in
            let sink = TimeoutSink(dueTime: dueTime, other: other, scheduler: scheduler, downstream: observer)
            sink.run(source)
            return sink
        }
    }
}

/// The sink of `timeout`. The source and the timer race: under the lock, a source event
/// wins unless the timer already switched to `other`, and the timer wins only if no event
/// came since it was started (its id is still current). Delivery goes through a
/// `DeliveryLine`, so downstream is called by one side at a time, and an event sent from
/// downstream while it handles one is delivered after it.
final class TimeoutSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the mutable state is behind the lock.
    private let dueTime: RxTimeInterval
    private let other: Observable<Element>
    private let scheduler: SchedulerType

    private struct State {
        /// Identifies the current timer; every source event moves it on.
        var id = 0
        var switched = false
        var delivery = DeliveryLine<Event<Element>>()
        var timer = ErrorsDisposableSlot()
        var source = ErrorsDisposableSlot()
        var other = ErrorsDisposableSlot()
    }

    private let shared = LockedState(State())

    init(
        dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType, downstream: AnyObserver<Element>
    ) {
        self.dueTime = dueTime
        self.other = other
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    /// Starts the first timer, then subscribes to the source, as RxSwift does.
    func run(_ source: Observable<Element>) {
        startTimer()
        let subscription = source.run(AnyObserver { self.on($0) })
        shared.withLock { $0.source.set(subscription, generation: 0) }?.dispose()
    }

    private func on(_ event: Event<Element>) {
        let (wins, first) = shared.withLock { state -> (Bool, Event<Element>?) in
            guard !state.switched else { return (false, nil) }
            state.id &+= 1
            return (true, state.delivery.submit(event))
        }
        guard wins else { return }
        deliver(first)
        if !event.isStopEvent { startTimer() }
    }

    private func onOther(_ event: Event<Element>) {
        deliver(shared.withLock { $0.delivery.submit(event) })
    }

    private func deliver(_ first: Event<Element>?) {
        shared.drain(startingWith: first, queue: \.delivery) { event in
            forwardEvent(event)
        }
    }

    private func startTimer() {
        let (id, generation) = shared.withLock { state -> (Int, Int?) in
            guard !state.timer.isDisposed else { return (state.id, nil) }
            return (state.id, state.timer.nextGeneration())
        }
        guard let generation else { return }
        let disposable = scheduler.scheduleRelative(self, dueTime: dueTime) { sink in
            sink.timerFired(id: id)
            return Disposables.create()
        }
        // Replacing the previous timer disposes it: a pending timer is cancelled, not left
        // to fire for nothing.
        shared.withLock { $0.timer.set(disposable, generation: generation) }?.dispose()
    }

    private func timerFired(id: Int) {
        let wins = shared.withLock { state -> Bool in
            guard !state.switched, state.id == id, !state.timer.isDisposed else { return false }
            state.switched = true
            return true
        }
        guard wins else { return }
        // As in RxSwift, `other` is subscribed first and the source disposed after.
        let generation = shared.withLock { $0.other.nextGeneration() }
        let subscription = other.subscribe(AnyObserver { self.onOther($0) })
        shared.withLock { $0.other.set(subscription, generation: generation) }?.dispose()
        shared.withLock { $0.source.dispose() }?.dispose()
    }

    override func didDispose() {
        let disposables = shared.withLock { state in
            [state.source.dispose(), state.timer.dispose(), state.other.dispose()]
        }
        for disposable in disposables { disposable?.dispose() }
    }
}
