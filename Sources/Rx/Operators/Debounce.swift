extension ObservableType {
    /// Each element that is not followed by another within `dueTime`, emitted `dueTime`
    /// after it arrived.
    ///
    /// When the source completes, the pending element (if any) is emitted at once, then
    /// `completed`; an error drops the pending element.
    ///
    /// - Parameters:
    ///   - dueTime: How long an element must be left alone to be emitted (`.never`: only
    ///     the element pending at completion is).
    ///   - scheduler: Runs the timers.
    public func debounce(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = DebounceSink(dueTime: dueTime, scheduler: scheduler, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// `debounce`: timers race upstream events on real schedulers, so the state is locked and
/// delivery goes through one queue. Each element gets an id; a timer emits only if its
/// element is still the latest.
final class DebounceSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the state is behind its lock; the serial disposable is thread-safe; the
    // rest is immutable.
    private struct State {
        var id: UInt64 = 0
        var pending: Element?
        var delivery = DeliveryLine<Event<Element>>()
    }

    private let dueTime: RxTimeInterval
    private let scheduler: SchedulerType
    private let locked = LockedState(State())
    private let timer = SerialDisposable()

    init(dueTime: RxTimeInterval, scheduler: SchedulerType, downstream: AnyObserver<Element>) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            let id = locked.withLock { state -> UInt64 in
                state.id &+= 1
                state.pending = element
                return state.id
            }
            guard dueTime != .never else { return }
            // Replacing the timer cancels the previous element's.
            timer.disposable = scheduler.scheduleRelative(id, dueTime: dueTime) { [self] id in
                emitPending(id: id)
                return Disposables.create()
            }
        case .error:
            deliver(
                locked.withLock { state in
                    state.pending = nil
                    return state.delivery.submit(event)
                })
        case .completed:
            deliver(
                locked.withLock { state in
                    var first: Event<Element>?
                    if let pending = state.pending {
                        state.pending = nil
                        first = state.delivery.submit(.next(pending))
                    }
                    // Queued behind the element if there is one.
                    let completed = state.delivery.submit(.completed)
                    return first ?? completed
                })
        }
    }

    private func emitPending(id: UInt64) {
        let first = locked.withLock { state -> Event<Element>? in
            guard state.id == id, let pending = state.pending else { return nil }
            state.pending = nil
            return state.delivery.submit(.next(pending))
        }
        deliver(first)
    }

    private func deliver(_ first: Event<Element>?) {
        locked.drain(startingWith: first, queue: \.delivery) { forwardEvent($0) }
    }

    override func didDispose() {
        timer.dispose()
    }
}
