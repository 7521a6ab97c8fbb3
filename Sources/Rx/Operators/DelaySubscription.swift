extension ObservableType {
    /// Subscribes to the source only after `dueTime` has passed on `scheduler`.
    ///
    /// Disposing before then cancels the pending subscription; the events themselves are
    /// not shifted.
    ///
    /// - Parameters:
    ///   - dueTime: How long to wait before subscribing.
    ///   - scheduler: The scheduler that runs the timer.
    /// - Returns: The source, subscribed later.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = DelaySubscriptionSink(downstream: observer)
            // The scheduled action returns the source subscription, which the scheduler's
            // disposable disposes along with the timer.
            sink.attach(
                scheduler.scheduleRelative(sink, dueTime: dueTime) { sink in
                    source.subscribe(AnyObserver { sink.forwardEvent($0) })
                })
            return sink
        }
    }
}

/// The sink of `delaySubscription`.
final class DelaySubscriptionSink<Element>: Sink<Element>, @unchecked Sendable {}
