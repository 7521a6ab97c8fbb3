extension ObservableType {
    /// Subscribes to the source, and disposes that subscription, on `scheduler`.
    ///
    /// Only the side effects of subscribing and disposing move to `scheduler`; the events
    /// arrive wherever the source emits them (use `observe(on:)` to move those). Under
    /// `TestScheduler`, a subscription at 200 reaches the source at 201, and a disposal at
    /// 1000 reaches it at 1001.
    ///
    /// - Parameter scheduler: Where the source is subscribed and disposed.
    /// - Returns: The source, subscribed on `scheduler`.
    public func subscribe(on scheduler: ImmediateSchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = SubscribeOnSink(scheduler: scheduler, downstream: observer)
            sink.run(source)
            return sink
        }
    }

    /// Subscribes to the source, and disposes that subscription, on `scheduler`.
    @available(*, deprecated, renamed: "subscribe(on:)")
    public func subscribeOn(_ scheduler: ImmediateSchedulerType) -> Observable<Element> {
        subscribe(on: scheduler)
    }
}

/// The sink of `subscribe(on:)`.
final class SubscribeOnSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the mutable state is behind the lock.
    private let scheduler: ImmediateSchedulerType

    private struct State {
        /// The scheduled subscription, cancelled if it has not run at disposal.
        var action = ErrorsDisposableSlot()
        var subscription = ErrorsDisposableSlot()
        /// Whether `run` is still in `schedule` (the scheduler may run the action at once).
        var scheduling = true
        /// A subscription that came back already disposed while `run` was still scheduling.
        var lateWhileScheduling: Disposable?
    }

    private let shared = LockedState(State())

    init(scheduler: ImmediateSchedulerType, downstream: AnyObserver<Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        let action = scheduler.schedule(self) { sink in
            let subscription = source.subscribe(AnyObserver { sink.forwardEvent($0) })
            let late = sink.shared.withLock { state -> Disposable? in
                guard let late = state.subscription.set(subscription, generation: 0) else { return nil }
                // Still inside `schedule`: as in RxSwift, dispose it once that returns, not
                // from within the action (MainScheduler.instance would queue it on the main
                // queue, and run nothing at once until that drains).
                guard !state.scheduling else {
                    state.lateWhileScheduling = late
                    return nil
                }
                return late
            }
            if let late { sink.disposeOnScheduler(late) }
            return Disposables.create()
        }
        let (cancelled, late) = shared.withLock { state in
            state.scheduling = false
            defer { state.lateWhileScheduling = nil }
            return (state.action.set(action, generation: 0), state.lateWhileScheduling)
        }
        cancelled?.dispose()
        if let late { disposeOnScheduler(late) }
    }

    /// Disposes the source subscription on the scheduler, as RxSwift's `ScheduledDisposable`.
    private func disposeOnScheduler(_ subscription: Disposable) {
        _ = scheduler.schedule(subscription) { subscription in
            subscription.dispose()
            return Disposables.create()
        }
    }

    override func didDispose() {
        let (action, subscription) = shared.withLock { ($0.action.dispose(), $0.subscription.dispose()) }
        action?.dispose()
        if let subscription { disposeOnScheduler(subscription) }
    }
}
