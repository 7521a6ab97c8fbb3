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
    }

    private let shared = LockedState(State())

    init(scheduler: ImmediateSchedulerType, downstream: AnyObserver<Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        let action = scheduler.schedule(self) { sink in
            let subscription = source.subscribe(AnyObserver { sink.forwardEvent($0) })
            if let late = sink.shared.withLock({ $0.subscription.set(subscription, generation: 0) }) {
                sink.disposeOnScheduler(late)
            }
            return Disposables.create()
        }
        shared.withLock { $0.action.set(action, generation: 0) }?.dispose()
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
