extension SharedSequenceConvertibleType {
    /// Emits an element only after `dueTime` passed without another one, timed on the
    /// strategy's scheduler (read now); completion flushes the pending element.
    public func debounce(_ dueTime: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().debounce(dueTime, scheduler: SharingStrategy.scheduler))
    }

    /// Emits the first element, then at most one element per `dueTime` (the latest of the
    /// window when `latest` is true), timed on the strategy's scheduler (read now).
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().throttle(dueTime, latest: latest, scheduler: SharingStrategy.scheduler))
    }

    /// Every event shifted `dueTime` later, timed on the strategy's scheduler (read now).
    public func delay(_ dueTime: RxTimeInterval) -> SharedSequence<SharingStrategy, Element> {
        SharedSequence(asObservable().delay(dueTime, scheduler: SharingStrategy.scheduler))
    }
}
