extension InfallibleType {
    /// This sequence as a `Driver`, delivered on `SharingScheduler.make()`: it cannot fail,
    /// so it needs no recovery.
    public func asDriver() -> Driver<Element> {
        Driver(asObservable().observe(on: DriverSharingStrategy.scheduler))
    }

    /// This sequence as a `Signal`, delivered on `SharingScheduler.make()`: it cannot fail,
    /// so it needs no recovery.
    public func asSignal() -> Signal<Element> {
        Signal(asObservable().observe(on: SignalSharingStrategy.scheduler))
    }
}
