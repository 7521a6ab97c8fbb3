extension ObservableType {
    /// The first `count` elements, then `completed` (at once, with the last of them).
    ///
    /// `take(0)` completes at subscription without subscribing to the source. A negative
    /// `count` fails with `RxError.argumentOutOfRange`.
    public func take(_ count: Int) -> Observable<Element> {
        if count == 0 { return Observable<Element>.empty() }
        if count < 0 { return Observable<Element>.error(RxError.argumentOutOfRange) }
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = TakeCountSink(remaining: count, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// The elements emitted during `duration` after subscription; then `completed`.
    ///
    /// - Parameters:
    ///   - duration: How long to take elements for (`.never`: the timer never fires).
    ///   - scheduler: Runs the timer.
    public func take(for duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = TakeTimeSink(downstream: observer)
            // As in RxSwift, the timer is scheduled before the source is subscribed: on a
            // virtual time scheduler it then runs before source events due at the same time.
            guard duration != .never else {
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            }
            let timer = scheduler.scheduleRelative(sink, dueTime: duration) { sink in
                sink.on(.completed)
                return Disposables.create()
            }
            sink.attach(Disposables.create(timer, source.run(AnyObserver { sink.on($0) })))
            return sink
        }
    }

    /// The elements emitted during `duration` after subscription; then `completed`.
    @available(*, deprecated, renamed: "take(for:scheduler:)")
    public func take(_ duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        take(for: duration, scheduler: scheduler)
    }
}

final class TakeCountSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `remaining` is only touched by upstream events, which arrive serially.
    private var remaining: Int

    init(remaining: Int, downstream: AnyObserver<Element>) {
        self.remaining = remaining
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            guard remaining > 0 else { return }
            // Counted before forwarding: an element sent back in from downstream must see
            // the new count, so `take(1)` never lets two through.
            remaining -= 1
            forward(event)
            if remaining == 0 {
                forwardTerminal(.completed)
            }
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}

/// `take(for:scheduler:)`: the timer's `completed` races upstream events on real
/// schedulers, so both go through one delivery queue.
final class TakeTimeSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the delivery queue is behind its lock.
    private let delivery = LockedState(DeliveryLine<Event<Element>>())

    func on(_ event: Event<Element>) {
        let first = delivery.withLock { $0.submit(event) }
        delivery.drain(startingWith: first, queue: \.self) { forwardEvent($0) }
    }
}
