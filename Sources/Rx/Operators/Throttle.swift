import Foundation

extension ObservableType {
    /// Emits an element, then lets no other through until `dueTime` has passed; with
    /// `latest`, the last element received meanwhile is emitted when the window ends.
    ///
    /// The first element goes out at once. An element arriving `dueTime` or more after the
    /// last emission goes out at once too. With `latest` false, the others are dropped;
    /// with `latest` true, the latest of them is emitted `dueTime` after the last emission
    /// and a source completion waits for it. An error drops the pending element.
    ///
    /// - Parameters:
    ///   - dueTime: The minimum time between two emitted elements.
    ///   - latest: Whether to emit the latest element received during a window at its end.
    ///   - scheduler: Runs the timers and tells the time.
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true, scheduler: SchedulerType)
        -> Observable<Element>
    {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = ThrottleSink(dueTime: dueTime, latest: latest, scheduler: scheduler, downstream: observer)
            sink.sourceSubscription.setDisposable(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// `throttle`: timers race upstream events on real schedulers, so the state is locked and
/// delivery goes through one queue.
final class ThrottleSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the state is behind its lock; the disposables are thread-safe; the rest is
    // immutable.
    private struct State {
        var lastUnsentElement: Element?
        var lastSentTime: Date?
        var isCompletionPending = false
        /// Identifies the current timer, so that one replaced while it was already firing
        /// emits nothing.
        var timerID: UInt64 = 0
        var delivery = DeliveryLine<Event<Element>>()
    }

    private enum Decision {
        case deliver(Event<Element>?)
        case schedule(id: UInt64, after: RxTimeInterval)
        case nothing
    }

    private let dueTime: RxTimeInterval
    private let latest: Bool
    private let scheduler: SchedulerType
    private let locked = LockedState(State())
    let sourceSubscription = SingleAssignmentDisposable()
    private let timer = SerialDisposable()
    // A completion that waits for the pending element does not stop the sink: what the
    // source sends after it, breaking the grammar, is kept out by this gate.
    private let sourceGate = SourceGate()

    init(dueTime: RxTimeInterval, latest: Bool, scheduler: SchedulerType, downstream: AnyObserver<Element>) {
        self.dueTime = dueTime
        self.latest = latest
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        if event.isStopEvent {
            guard sourceGate.close() else { return }
        } else {
            guard sourceGate.isOpen else { return }
        }
        switch event {
        case .next(let element):
            let now = scheduler.now
            let decision = locked.withLock { state -> Decision in
                let remaining =
                    state.lastSentTime.map { dueTime.throttleRemainder(from: $0, to: now) } ?? .nanoseconds(0)
                if remaining.throttleIsNow {
                    state.lastUnsentElement = nil
                    state.lastSentTime = now
                    return .deliver(state.delivery.submit(event))
                }
                guard latest else { return .nothing }
                let isTimerRunning = state.lastUnsentElement != nil
                state.lastUnsentElement = element
                if isTimerRunning { return .nothing }
                state.timerID &+= 1
                return .schedule(id: state.timerID, after: remaining)
            }
            switch decision {
            case .deliver(let first):
                deliver(first)
            case .schedule(let id, let remaining):
                guard remaining != .never else { return }
                timer.disposable = scheduler.scheduleRelative(id, dueTime: remaining) { [self] id in
                    emitLatest(timerID: id)
                    return Disposables.create()
                }
            case .nothing:
                break
            }
        case .error:
            deliver(
                locked.withLock { state in
                    state.lastUnsentElement = nil
                    return state.delivery.submit(event)
                })
        case .completed:
            let decision = locked.withLock { state -> Decision in
                if state.lastUnsentElement != nil {
                    state.isCompletionPending = true
                    return .nothing
                }
                return .deliver(state.delivery.submit(.completed))
            }
            if case .deliver(let first) = decision {
                deliver(first)
            } else {
                // The source is finished: release it now (RxSwift's subscription ranges end
                // here too); the pending element and `completed` go out when the timer fires.
                sourceSubscription.dispose()
            }
        }
    }

    private func emitLatest(timerID: UInt64) {
        let now = scheduler.now
        let first = locked.withLock { state -> Event<Element>? in
            guard state.timerID == timerID else { return nil }
            var first: Event<Element>?
            if let element = state.lastUnsentElement {
                state.lastUnsentElement = nil
                state.lastSentTime = now
                first = state.delivery.submit(.next(element))
            }
            if state.isCompletionPending {
                // Queued behind the element if there is one.
                let completed = state.delivery.submit(.completed)
                first = first ?? completed
            }
            return first
        }
        deliver(first)
    }

    private func deliver(_ first: Event<Element>?) {
        locked.drain(startingWith: first, queue: \.delivery) { forwardEvent($0) }
    }

    override func didDispose() {
        sourceSubscription.dispose()
        timer.dispose()
    }
}

extension DispatchTimeInterval {
    /// What is left of this interval `from` one time `to` another, in this interval's own
    /// unit, rounded to the nearest unit (half away from zero) and never below zero: the
    /// arithmetic RxSwift's throttle uses, which decides its ticks.
    fileprivate func throttleRemainder(from earlier: Date, to later: Date) -> DispatchTimeInterval {
        let elapsed = later.timeIntervalSince(earlier)
        func remainder(_ value: Int, unitsPerSecond: Double) -> Int {
            let left = Double(value) - elapsed * unitsPerSecond
            guard left > 0 else { return 0 }
            // `Int(_:)` traps beyond `Int.max`; a remainder that large is the whole interval.
            guard left < Double(Int.max) else { return value }
            return Int(left.rounded(.toNearestOrAwayFromZero))
        }
        switch self {
        case .seconds(let value): return .seconds(remainder(value, unitsPerSecond: 1))
        case .milliseconds(let value): return .milliseconds(remainder(value, unitsPerSecond: 1_000))
        case .microseconds(let value): return .microseconds(remainder(value, unitsPerSecond: 1_000_000))
        case .nanoseconds(let value): return .nanoseconds(remainder(value, unitsPerSecond: 1_000_000_000))
        case .never: return .never
        @unknown default: return .never
        }
    }

    /// Whether this is a zero interval (`.never` is not).
    fileprivate var throttleIsNow: Bool {
        switch self {
        case .seconds(let value), .milliseconds(let value), .microseconds(let value), .nanoseconds(let value):
            return value == 0
        case .never: return false
        @unknown default: return false
        }
    }
}
