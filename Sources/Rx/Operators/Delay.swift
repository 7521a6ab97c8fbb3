import Foundation

extension ObservableType {
    /// Shifts the elements and the completion of the source later by `dueTime`; an error
    /// is delivered at once, dropping the elements still waiting.
    ///
    /// Each event keeps its distance from the one before it, as measured on `scheduler`.
    /// One timer runs at a time: it delivers the oldest waiting event, then is rescheduled
    /// for the next one (under `TestScheduler`, an event that is already due is delivered
    /// one tick later). The source subscription is disposed as soon as the source ends.
    ///
    /// - Parameters:
    ///   - dueTime: How much later each event is delivered.
    ///   - scheduler: The scheduler that runs the timers.
    /// - Returns: The source, shifted in time.
    public func delay(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = DelaySink(dueTime: dueTime, scheduler: scheduler, downstream: observer)
            sink.run(source)
            return sink
        }
    }
}

/// The sink of `delay`. The timer and the source's error race for downstream, so delivery
/// goes through a `DeliveryLine`.
final class DelaySink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the mutable state is behind the lock.
    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType

    private struct State {
        /// Events waiting for their time, with the time they arrived.
        var pending: [(time: RxTime, event: Event<Element>)] = []
        var head = 0
        /// A timer is scheduled or delivering.
        var isActive = false
        var delivery = DeliveryLine<Event<Element>>()
        var source = ErrorsDisposableSlot()
        var timer = ErrorsDisposableSlot()

        mutating func dequeue() -> Event<Element>? {
            guard head < pending.count else { return nil }
            let event = pending[head].event
            head += 1
            if head == pending.count {
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            return event
        }

        mutating func dropPending() {
            pending.removeAll()
            head = 0
        }
    }

    private let shared = LockedState(State())

    init(dueTime: RxTimeInterval, scheduler: SchedulerType, downstream: AnyObserver<Element>) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        let subscription = source.run(AnyObserver { self.on($0) })
        shared.withLock { $0.source.set(subscription, generation: 0) }?.dispose()
    }

    private func on(_ event: Event<Element>) {
        switch event {
        case .next, .completed:
            let now = scheduler.now
            let (timerGeneration, finishedSource) = shared.withLock { state -> (Int?, Disposable?) in
                // A released source slot: the source has ended, and what it still sends,
                // breaking the grammar, is dropped.
                guard !state.delivery.isClosed, !state.timer.isDisposed, !state.source.isDisposed else {
                    return (nil, nil)
                }
                // The source is done: release it now, the completion waits on its own.
                let finishedSource = event.isStopEvent ? state.source.dispose() : nil
                state.pending.append((now, event))
                if state.isActive { return (nil, finishedSource) }
                state.isActive = true
                return (state.timer.nextGeneration(), finishedSource)
            }
            finishedSource?.dispose()
            if let timerGeneration { scheduleDelivery(after: dueTime, generation: timerGeneration) }
        case .error:
            let (first, finishedSource) = shared.withLock { state -> (Event<Element>?, Disposable?) in
                // After the source's completion, an error must not flush what is pending.
                guard !state.source.isDisposed else { return (nil, nil) }
                state.dropPending()
                return (state.delivery.submit(event), state.source.dispose())
            }
            finishedSource?.dispose()
            deliver(first)
        }
    }

    /// Schedules the timer; `generation` was taken from the timer slot when the caller
    /// decided to schedule.
    private func scheduleDelivery(after interval: RxTimeInterval, generation: Int) {
        let disposable = scheduler.scheduleRelative(self, dueTime: interval) { sink in
            sink.deliverOne()
            return Disposables.create()
        }
        shared.withLock { $0.timer.set(disposable, generation: generation) }?.dispose()
    }

    /// Delivers the oldest waiting event, then schedules the timer for the next one.
    private func deliverOne() {
        guard !isStoppedOrDisposed else { return }
        let first = shared.withLock { state -> Event<Element>? in
            guard let event = state.dequeue() else {
                state.isActive = false
                return nil
            }
            return state.delivery.submit(event)
        }
        deliver(first)
        let next = shared.withLock { state -> (time: RxTime, generation: Int)? in
            guard !state.delivery.isClosed, !state.timer.isDisposed, state.head < state.pending.count else {
                state.isActive = false
                return nil
            }
            return (state.pending[state.head].time, state.timer.nextGeneration())
        }
        guard let next else { return }
        let remaining = dueTime.seconds - scheduler.now.timeIntervalSince(next.time)
        scheduleDelivery(after: .fromSeconds(remaining), generation: next.generation)
    }

    private func deliver(_ first: Event<Element>?) {
        shared.drain(startingWith: first, queue: \.delivery) { event in
            forwardEvent(event)
        }
    }

    override func didDispose() {
        let (source, timer) = shared.withLock { state -> (Disposable?, Disposable?) in
            state.dropPending()
            return (state.source.dispose(), state.timer.dispose())
        }
        source?.dispose()
        timer?.dispose()
    }
}
