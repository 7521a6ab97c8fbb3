extension ObservableType {
    /// Delivers the events on `scheduler`, in order, none dropped.
    ///
    /// The events wait in a queue; one scheduled action at a time delivers the oldest
    /// event and, if more are waiting, schedules the next action (as RxSwift's general
    /// path does). So a concurrent scheduler still gets one event at a time, and under
    /// `TestScheduler` each event is delivered one tick after the one before it at the
    /// earliest. The source subscription is disposed when its terminal event has been
    /// delivered.
    ///
    /// - Parameter scheduler: Where downstream receives the events.
    /// - Returns: The source, observed on `scheduler`.
    public func observe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        let source = asObservable()
        let counter = SerialDispatchQueueObservableCounter.counting(for: scheduler)
        return Observable<Element>.make { observer in
            withExtendedLifetime(counter) {}
            let sink = ObserveOnSink(scheduler: scheduler, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// Delivers the events on `scheduler`, in order, none dropped.
    @available(*, deprecated, renamed: "observe(on:)")
    public func observeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        observe(on: scheduler)
    }
}

/// The sink of `observe(on:)`.
final class ObserveOnSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the mutable state is behind the lock.
    private let scheduler: ImmediateSchedulerType

    private struct State {
        var queue: [Event<Element>] = []
        var head = 0
        /// An action is scheduled or delivering.
        var isRunning = false
        /// The terminal event is queued: later events break the grammar and are ignored.
        var isStopped = false
        var action = ErrorsDisposableSlot()

        /// Takes the oldest queued event.
        mutating func dequeue() -> Event<Element>? {
            guard head < queue.count else { return nil }
            let event = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return event
        }
    }

    private let shared = LockedState(State())

    init(scheduler: ImmediateSchedulerType, downstream: AnyObserver<Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        let generation = shared.withLock { state -> Int? in
            guard !state.isStopped, !state.action.isDisposed else { return nil }
            if event.isStopEvent { state.isStopped = true }
            state.queue.append(event)
            if state.isRunning { return nil }
            state.isRunning = true
            return state.action.nextGeneration()
        }
        if let generation { scheduleDelivery(generation: generation) }
    }

    /// Schedules the action that delivers the oldest queued event; `generation` was taken
    /// from the action slot when the caller decided to schedule.
    private func scheduleDelivery(generation: Int) {
        let disposable = scheduler.schedule(self) { sink in
            sink.deliverOne()
            return Disposables.create()
        }
        shared.withLock { $0.action.set(disposable, generation: generation) }?.dispose()
    }

    /// Delivers the oldest queued event, then schedules the next one if any.
    private func deliverOne() {
        guard !isStoppedOrDisposed else { return }
        let event = shared.withLock { state -> Event<Element>? in
            guard let event = state.dequeue() else {
                state.isRunning = false
                return nil
            }
            return event
        }
        guard let event else { return }
        if event.isStopEvent {
            forwardTerminal(event)
            return
        }
        forward(event)
        let generation = shared.withLock { state -> Int? in
            guard state.head < state.queue.count, !state.action.isDisposed else {
                state.isRunning = false
                return nil
            }
            return state.action.nextGeneration()
        }
        if let generation { scheduleDelivery(generation: generation) }
    }

    override func didDispose() {
        let action = shared.withLock { state -> Disposable? in
            state.queue.removeAll()
            state.head = 0
            return state.action.dispose()
        }
        action?.dispose()
    }
}
