extension ObservableType {
    /// Collects elements into arrays, emitting each array when it holds `count` elements or when
    /// `timeSpan` has passed since the previous array was emitted, whichever comes first.
    ///
    /// Arrays go out on time even when empty. On completion the current array (possibly
    /// empty) is emitted before `completed`; on error it is dropped. As in RxSwift, a `count` of
    /// zero or less never fills an array, so arrays are then cut by time only.
    ///
    /// - Parameters:
    ///   - timeSpan: The longest time an array is collected.
    ///   - count: The most elements an array holds.
    ///   - scheduler: The scheduler that runs the timers.
    public func buffer(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType) -> Observable<[Element]> {
        let source = asObservable()
        return Observable<[Element]>.make { observer in
            let sink = BufferTimeCountSink<Element>(
                timeSpan: timeSpan, count: count, scheduler: scheduler, downstream: observer)
            sink.run(source)
            return sink
        }
    }
}

/// The state of a `BufferTimeCountSink`, behind its lock.
struct BufferTimeCountState<Element> {
    /// Serialises delivery: the timer and the source emit concurrently.
    var delivery = DeliveryLine<Event<[Element]>>()
    var buffer: [Element] = []
    /// Identifies the current array, so that a timer set for an array already emitted does
    /// nothing.
    var windowID = 0
    var timer: Disposable?
    var isDisposed = false
}

final class BufferTimeCountSink<Element>: Sink<[Element]>, @unchecked Sendable {
    // Sendable: immutable but for `shared`, which is behind its lock.
    private let timeSpan: RxTimeInterval
    private let count: Int
    private let scheduler: SchedulerType
    private let shared = LockedState(BufferTimeCountState<Element>())

    init(timeSpan: RxTimeInterval, count: Int, scheduler: SchedulerType, downstream: AnyObserver<[Element]>) {
        self.timeSpan = timeSpan
        self.count = count
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        // The first timer starts before the source is subscribed, as in RxSwift.
        startTimer(for: 0)
        attach(source.run(AnyObserver { self.on($0) }))
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            var nextWindow: Int?
            let first = shared.withLock { state -> Event<[Element]>? in
                guard !state.delivery.isClosed else { return nil }
                state.buffer.append(element)
                guard state.buffer.count == count else { return nil }
                nextWindow = state.startWindow()
                return state.delivery.submit(.next(state.takeBuffer()))
            }
            deliver(first)
            if let nextWindow { startTimer(for: nextWindow) }
        case .error(let error):
            let first = shared.withLock { state -> Event<[Element]>? in
                state.buffer = []
                return state.delivery.submit(.error(error))
            }
            deliver(first)
        case .completed:
            let first = shared.withLock { state -> Event<[Element]>? in
                let first = state.delivery.submit(.next(state.takeBuffer()))
                // Queued behind the last array (or behind the event being delivered).
                _ = state.delivery.submit(.completed)
                return first
            }
            deliver(first)
        }
    }

    /// Schedules the timer that ends array `windowID`, unless that array is already over.
    private func startTimer(for windowID: Int) {
        let isCurrent = shared.withLock { !$0.isDisposed && $0.windowID == windowID }
        guard isCurrent else { return }
        let timer = scheduler.scheduleRelative(windowID, dueTime: timeSpan) { windowID in
            self.timerFired(windowID)
            return Disposables.create()
        }
        // Scheduling ran outside the lock, so the array may have ended meanwhile; a newer timer
        // replaces an older one, never the other way round.
        let obsolete = shared.withLock { state -> Disposable? in
            guard !state.isDisposed, state.windowID == windowID else { return timer }
            defer { state.timer = timer }
            return state.timer
        }
        obsolete?.dispose()
    }

    private func timerFired(_ windowID: Int) {
        var nextWindow: Int?
        let first = shared.withLock { state -> Event<[Element]>? in
            guard state.windowID == windowID, !state.delivery.isClosed else { return nil }
            nextWindow = state.startWindow()
            return state.delivery.submit(.next(state.takeBuffer()))
        }
        deliver(first)
        if let nextWindow { startTimer(for: nextWindow) }
    }

    private func deliver(_ first: Event<[Element]>?) {
        var event = first
        while let current = event {
            forwardEvent(current)
            event = shared.withLock { $0.delivery.next() }
        }
    }

    override func didDispose() {
        let timer = shared.withLock { state -> Disposable? in
            state.isDisposed = true
            state.buffer = []
            defer { state.timer = nil }
            return state.timer
        }
        timer?.dispose()
    }
}

extension BufferTimeCountState {
    /// Moves on to the next array; returns its id.
    fileprivate mutating func startWindow() -> Int {
        windowID &+= 1
        return windowID
    }

    fileprivate mutating func takeBuffer() -> [Element] {
        defer { buffer = [] }
        return buffer
    }
}
