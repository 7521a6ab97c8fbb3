extension InfallibleType {
    /// Each element that no other element follows within `dueTime`, delivered once
    /// `dueTime` has passed without one (see `Observable.debounce`).
    public func debounce(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> Infallible<Element> {
        Infallible(asObservable().debounce(dueTime, scheduler: scheduler))
    }

    /// At most one element per `dueTime`: the first at once, then, when `latest` is true,
    /// the latest one held back at the end of the window (see `Observable.throttle`).
    public func throttle(_ dueTime: RxTimeInterval, latest: Bool = true, scheduler: SchedulerType)
        -> Infallible<Element>
    {
        Infallible(asObservable().throttle(dueTime, latest: latest, scheduler: scheduler))
    }
}
