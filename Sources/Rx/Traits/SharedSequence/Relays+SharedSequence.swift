extension BehaviorRelay {
    /// The relay's value and its changes as a `Driver`, delivered on
    /// `SharingScheduler.make()`: a relay never fails.
    public func asDriver() -> Driver<Element> {
        Driver(asObservable().observe(on: DriverSharingStrategy.scheduler))
    }
}

extension PublishRelay {
    /// The relay's elements as a `Driver`, delivered on `SharingScheduler.make()`: it
    /// replays the latest element to new observers while any is subscribed.
    public func asDriver() -> Driver<Element> {
        Driver(asObservable().observe(on: DriverSharingStrategy.scheduler))
    }

    /// The relay's elements as a `Signal`, delivered on `SharingScheduler.make()`: a relay
    /// never fails.
    public func asSignal() -> Signal<Element> {
        Signal(asObservable().observe(on: SignalSharingStrategy.scheduler))
    }
}
