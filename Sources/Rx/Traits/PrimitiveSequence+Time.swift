import Foundation

extension PrimitiveSequence {
    /// The sequence shifted later by `dueTime`: each element and the completion are
    /// delivered `dueTime` after they happened; an error is delivered at once.
    ///
    /// As in RxSwift, each event is its own scheduled step: the completion that follows an
    /// element is due at the same time, so a virtual-time scheduler delivers it one tick
    /// after the element.
    public func delay(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> PrimitiveSequence<Trait, Element> {
        let source = self.source
        return PrimitiveSequence(
            raw: Observable<Element>.make { observer in
                let sink = TraitDelaySink(dueTime: dueTime, scheduler: scheduler, downstream: observer)
                sink.subscription.setDisposable(source.subscribe(AnyObserver { sink.on($0) }))
                return sink
            })
    }

    /// The sequence, subscribed `dueTime` after the subscription was made.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: SchedulerType)
        -> PrimitiveSequence<Trait, Element>
    {
        let source = self.source
        return PrimitiveSequence(
            raw: Observable<Element>.make { observer in
                let sink = TraitDeferredSubscriptionSink(downstream: observer)
                if timerIntervalIsNever(dueTime) { return sink }
                sink.schedule.setDisposable(
                    scheduler.scheduleRelative((), dueTime: dueTime) { _ in
                        sink.subscription.setDisposable(source.subscribe(AnyObserver { sink.forwardEvent($0) }))
                        return Disposables.create()
                    })
                return sink
            })
    }

    /// Fails with `RxError.timeout` if the sequence has not terminated within `dueTime`
    /// of the subscription (or of its element).
    public func timeout(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable.traitTimeout(
                source, dueTime: dueTime, other: Observable<Element>.error(RxError.timeout), scheduler: scheduler))
    }

    /// Switches to `other` if the sequence has not terminated within `dueTime` of the
    /// subscription (or of its element).
    public func timeout(
        _ dueTime: RxTimeInterval, other: PrimitiveSequence<Trait, Element>, scheduler: SchedulerType
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable.traitTimeout(source, dueTime: dueTime, other: other.source, scheduler: scheduler))
    }
}

extension Observable {
    fileprivate static func traitTimeout(
        _ source: Observable<Element>, dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType
    ) -> Observable<Element> {
        make { observer in
            let sink = TraitTimeoutSink(dueTime: dueTime, other: other, scheduler: scheduler, downstream: observer)
            sink.start(source)
            return sink
        }
    }
}

/// A subscription made later, on a scheduler (`delaySubscription`, `subscribe(on:)`):
/// the scheduled work and the subscription it makes, each in its own slot so that either
/// may be set first.
final class TraitDeferredSubscriptionSink<Element>: Sink<Element>, @unchecked Sendable {
    let schedule = SingleAssignmentDisposable()
    let subscription = SingleAssignmentDisposable()

    override func didDispose() {
        schedule.dispose()
        subscription.dispose()
    }
}

/// One subscription of a trait `delay`, after RxSwift's algorithm so that the timing
/// matches tick for tick: events are queued with the time they happened; one drain, each
/// step a scheduled action, delivers the first queued event, then schedules itself for the
/// next one's due time. An error skips the queue unless a drain step is delivering.
final class TraitDelaySink<Element>: Sink<Element>, @unchecked Sendable {
    private struct State {
        var queue: [(time: RxTime, event: Event<Element>)] = []
        var head = 0
        /// A drain is scheduled or running.
        var isActive = false
        /// A drain step is delivering.
        var isRunning = false
        var error: Event<Element>?

        mutating func dequeue() -> Event<Element>? {
            guard head < queue.count else { return nil }
            let event = queue[head].event
            head += 1
            if head == queue.count {
                queue.removeAll()
                head = 0
            }
            return event
        }

        var nextTime: RxTime? { head < queue.count ? queue[head].time : nil }
    }

    private enum Step {
        case fail(Event<Element>)
        case deliver(Event<Element>)
        case wait(until: RxTime)
        case idle
    }

    private let lock = LockedState(State())
    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType
    let subscription = SingleAssignmentDisposable()
    private let drainSchedule = SerialDisposable()
    // A delayed completion does not stop the sink: a source that sends after its terminal
    // event (an error would flush the queue) is kept out by this gate.
    private let sourceGate = SourceGate()

    init(dueTime: RxTimeInterval, scheduler: SchedulerType, downstream: AnyObserver<Element>) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        if event.isStopEvent {
            guard sourceGate.close() else { return }
            subscription.dispose()
        } else {
            guard sourceGate.isOpen else { return }
        }
        switch event {
        case .error:
            let deliverNow = lock.withLock { state -> Bool in
                state.queue.removeAll()
                state.head = 0
                state.error = event
                return !state.isRunning
            }
            if deliverNow { forwardTerminal(event) }
        case .next, .completed:
            let time = scheduler.now
            let startDrain = lock.withLock { state -> Bool in
                state.queue.append((time, event))
                defer { state.isActive = true }
                return !state.isActive
            }
            if startDrain && !timerIntervalIsNever(dueTime) {
                drainSchedule.disposable = scheduler.scheduleRecursive((), dueTime: dueTime) { _, recurse in
                    self.drain { recurse((), $0) }
                }
            }
        }
    }

    private func drain(reschedule: (RxTimeInterval) -> Void) {
        let failed = lock.withLock { state -> Bool in
            if state.error != nil { return true }
            state.isRunning = true
            return false
        }
        if failed { return }
        var delivered = false
        while true {
            let step = lock.withLock { state -> Step in
                if let error = state.error { return .fail(error) }
                if !delivered, let event = state.dequeue() { return .deliver(event) }
                state.isRunning = false
                if delivered, let time = state.nextTime { return .wait(until: time) }
                state.isActive = false
                return .idle
            }
            switch step {
            case .fail(let error):
                forwardTerminal(error)
                return
            case .deliver(let event):
                delivered = true
                forwardEvent(event)
                if event.isStopEvent { return }
            case .wait(let time):
                let remaining = dueTime.seconds - scheduler.now.timeIntervalSince(time)
                reschedule(.fromSeconds(remaining))
                return
            case .idle:
                return
            }
        }
    }

    override func didDispose() {
        subscription.dispose()
        drainSchedule.dispose()
    }
}

/// One subscription of a trait `timeout`: a timer per element (and one from the
/// subscription); the timer that is still current when it fires switches to `other`.
final class TraitTimeoutSink<Element>: Sink<Element>, @unchecked Sendable {
    private struct State {
        var id = 0
        var hasSwitched = false
    }

    private let lock = LockedState(State())
    private let dueTime: RxTimeInterval
    private let other: Observable<Element>
    private let scheduler: SchedulerType
    private let timer = SerialDisposable()
    private let subscription = SerialDisposable()

    init(
        dueTime: RxTimeInterval, other: Observable<Element>, scheduler: SchedulerType, downstream: AnyObserver<Element>
    ) {
        self.dueTime = dueTime
        self.other = other
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func start(_ source: Observable<Element>) {
        let original = SingleAssignmentDisposable()
        subscription.disposable = original
        startTimer(id: 0)
        original.setDisposable(source.subscribe(AnyObserver { self.on($0) }))
    }

    private func on(_ event: Event<Element>) {
        let id = lock.withLock { state -> Int? in
            if state.hasSwitched { return nil }
            state.id &+= 1
            return state.id
        }
        guard let id else { return }
        if event.isStopEvent {
            forwardTerminal(event)
        } else {
            forward(event)
            startTimer(id: id)
        }
    }

    private func startTimer(id: Int) {
        if timer.isDisposed || timerIntervalIsNever(dueTime) { return }
        let slot = SingleAssignmentDisposable()
        timer.disposable = slot
        slot.setDisposable(
            scheduler.scheduleRelative(id, dueTime: dueTime) { id in
                self.fire(id: id)
                return Disposables.create()
            })
    }

    private func fire(id: Int) {
        let wins = lock.withLock { state -> Bool in
            state.hasSwitched = state.id == id
            return state.hasSwitched
        }
        if wins {
            subscription.disposable = other.subscribe(AnyObserver { self.forwardEvent($0) })
        }
    }

    override func didDispose() {
        timer.dispose()
        subscription.dispose()
    }
}
