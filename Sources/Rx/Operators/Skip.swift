extension ObservableType {
    /// The source's elements after the first `count`. A `count` of zero or less skips
    /// nothing.
    public func skip(_ count: Int) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = SkipCountSink(remaining: count, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// The source's elements emitted after `duration` has passed since subscription.
    ///
    /// - Parameters:
    ///   - duration: How long to drop elements for (`.never`: every element is dropped).
    ///   - scheduler: Runs the timer.
    public func skip(_ duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = SkipTimeSink(downstream: observer)
            // As in RxSwift, the timer is scheduled before the source is subscribed: on a
            // virtual time scheduler it then runs before source events due at the same time.
            guard duration != .never else {
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            }
            let timer = scheduler.scheduleRelative(sink, dueTime: duration) { sink in
                sink.open()
                return Disposables.create()
            }
            sink.attach(Disposables.create(timer, source.run(AnyObserver { sink.on($0) })))
            return sink
        }
    }

    /// The source's elements emitted after `duration` has passed since subscription; the
    /// same as `skip(_:scheduler:)`, labelled like `take(for:scheduler:)`.
    public func skip(for duration: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        skip(duration, scheduler: scheduler)
    }
}

final class SkipCountSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `remaining` is only touched by upstream events, which arrive serially.
    private var remaining: Int

    init(remaining: Int, downstream: AnyObserver<Element>) {
        self.remaining = remaining
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if remaining <= 0 {
                forward(event)
            } else {
                remaining -= 1
            }
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}

/// `skip(_:scheduler:)`: the timer only opens a gate, so an atomic flag is all the two
/// threads share; only upstream events are delivered.
final class SkipTimeSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the gate is atomic.
    private let isOpen = AtomicInt(0)

    func open() {
        isOpen.store(1)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if isOpen.load() != 0 { forward(event) }
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}
