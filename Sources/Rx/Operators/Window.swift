extension ObservableType {
    /// Splits the sequence into windows: emits an `Observable` for the current window at once on
    /// subscription, and a new one whenever the current window holds `count` elements or
    /// `timeSpan` has passed since it opened, whichever comes first; the window being replaced
    /// completes.
    ///
    /// Windows are hot: subscribe to a window as it is emitted to see all its elements. The
    /// source stays subscribed while the outer subscription or any window subscription lives. A
    /// terminal event of the source goes to the current window and then downstream. As in
    /// RxSwift, a `count` of zero or less never fills a window, so windows are then cut by time
    /// only.
    ///
    /// - Parameters:
    ///   - timeSpan: The longest time a window stays open.
    ///   - count: The most elements a window holds.
    ///   - scheduler: The scheduler that runs the timers.
    public func window(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType)
        -> Observable<Observable<Element>>
    {
        let source = asObservable()
        return Observable<Observable<Element>>.make { observer in
            let sink = WindowTimeCountSink<Element>(
                timeSpan: timeSpan, count: count, scheduler: scheduler, downstream: observer)
            sink.run(source)
            return sink
        }
    }
}

/// What the delivering thread does, in order, for `window`: the windows' subjects are fed
/// through the same queue as downstream, so that nothing is delivered concurrently or out of
/// order, and never under the lock.
enum WindowTimeCountStep<Element> {
    /// An element for a window.
    case element(PublishSubject<Element>, Element)
    /// Completes the window being replaced (if any) and emits the new one.
    case open(closing: PublishSubject<Element>?, window: Observable<Element>)
    /// The source's terminal event for the current window; the downstream one follows.
    case terminate(PublishSubject<Element>, Event<Element>)
}

/// The state of a `WindowTimeCountSink`, behind its lock.
struct WindowTimeCountState<Element> {
    var delivery = DeliveryLine<Event<WindowTimeCountStep<Element>>>()
    var subject = PublishSubject<Element>()
    /// Elements in the current window.
    var count = 0
    /// Identifies the current window, so that a timer set for a window already replaced does
    /// nothing.
    var windowID = 0
    var timer: Disposable?
    var source: Disposable?
    /// Whether the shared upstream was released: no more timers.
    var isReleased = false
}

final class WindowTimeCountSink<Element>: Sink<Observable<Element>>, TransformingRefCountOwner, @unchecked Sendable {
    // Sendable: immutable but for `shared`, which is behind its lock.
    private let timeSpan: RxTimeInterval
    private let count: Int
    private let scheduler: SchedulerType
    private let refCount = TransformingRefCount()
    private let shared = LockedState(WindowTimeCountState<Element>())

    init(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType, downstream: AnyObserver<Observable<Element>>) {
        self.timeSpan = timeSpan
        self.count = count
        self.scheduler = scheduler
        super.init(downstream: downstream)
        refCount.setOwner(self)
    }

    func run(_ source: Observable<Element>) {
        // Disposing the outer subscription ends only its own hold on the source and timers.
        attach(refCount)
        // As in RxSwift: the first window, then its timer, then the source.
        deliver(
            shared.withLock { state in state.delivery.submit(.next(.open(closing: nil, window: window(state.subject))))
            })
        startTimer(for: 0)
        let subscription = source.run(AnyObserver { self.on($0) })
        let keep = shared.withLock { state -> Bool in
            guard !state.isReleased else { return false }
            state.source = subscription
            return true
        }
        if !keep { subscription.dispose() }
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            var nextWindow: Int?
            let first = shared.withLock { state -> Event<WindowTimeCountStep<Element>>? in
                guard !state.delivery.isClosed else { return nil }
                let first = state.delivery.submit(.next(.element(state.subject, element)))
                // A count of zero or less never fills a window (and never overflows).
                guard count > 0 else { return first }
                state.count += 1
                guard state.count == count else { return first }
                let opened = openWindow(&state)
                nextWindow = opened.id
                // Only one of the two can be handed back: the second submit queues behind the first.
                return first ?? opened.first
            }
            deliver(first)
            if let nextWindow { startTimer(for: nextWindow) }
        case .error, .completed:
            let first = shared.withLock { state -> Event<WindowTimeCountStep<Element>>? in
                let first = state.delivery.submit(.next(.terminate(state.subject, event)))
                switch event {
                case .error(let error): _ = state.delivery.submit(.error(error))
                case .next, .completed: _ = state.delivery.submit(.completed)
                }
                return first
            }
            deliver(first)
        }
    }

    /// Replaces the current window with a new one; returns its id and, if the caller must
    /// deliver it, the step that announces it.
    private func openWindow(_ state: inout WindowTimeCountState<Element>)
        -> (id: Int, first: Event<WindowTimeCountStep<Element>>?)
    {
        let closing = state.subject
        state.subject = PublishSubject()
        state.count = 0
        state.windowID &+= 1
        let first = state.delivery.submit(.next(.open(closing: closing, window: window(state.subject))))
        return (state.windowID, first)
    }

    private func window(_ subject: PublishSubject<Element>) -> Observable<Element> {
        TransformingRefCountedObservable(subject: subject, refCount: refCount)
    }

    /// Schedules the timer that ends window `windowID`, unless that window is already over.
    private func startTimer(for windowID: Int) {
        let isCurrent = shared.withLock { !$0.isReleased && $0.windowID == windowID }
        guard isCurrent else { return }
        let timer = scheduler.scheduleRelative(windowID, dueTime: timeSpan) { windowID in
            self.timerFired(windowID)
            return Disposables.create()
        }
        // Scheduling ran outside the lock, so the window may have ended meanwhile; a newer timer
        // replaces an older one, never the other way round.
        let obsolete = shared.withLock { state -> Disposable? in
            guard !state.isReleased, state.windowID == windowID else { return timer }
            defer { state.timer = timer }
            return state.timer
        }
        obsolete?.dispose()
    }

    private func timerFired(_ windowID: Int) {
        var nextWindow: Int?
        let first = shared.withLock { state -> Event<WindowTimeCountStep<Element>>? in
            guard state.windowID == windowID, !state.delivery.isClosed else { return nil }
            let opened = openWindow(&state)
            nextWindow = opened.id
            return opened.first
        }
        deliver(first)
        if let nextWindow { startTimer(for: nextWindow) }
    }

    private func deliver(_ first: Event<WindowTimeCountStep<Element>>?) {
        var event = first
        while let current = event {
            switch current {
            case .next(.element(let subject, let element)):
                subject.on(.next(element))
            case .next(.open(let closing, let window)):
                closing?.on(.completed)
                forward(.next(window))
            case .next(.terminate(let subject, let terminal)):
                subject.on(terminal)
            case .error(let error):
                forwardTerminal(.error(error))
                refCount.releaseNow()
            case .completed:
                forwardTerminal(.completed)
                refCount.releaseNow()
            }
            event = shared.withLock { $0.delivery.next() }
        }
    }

    func releaseUpstream() {
        let (timer, source) = shared.withLock { state -> (Disposable?, Disposable?) in
            state.isReleased = true
            defer {
                state.timer = nil
                state.source = nil
            }
            return (state.timer, state.source)
        }
        timer?.dispose()
        source?.dispose()
    }
}
