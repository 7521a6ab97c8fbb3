extension ControlEvent {
    /// The events as a `Driver` (delivered on `SharingScheduler.make()`, replaying the
    /// latest to new observers). A control event never fails, so an error that still
    /// arrives is a bug in its source: it goes to `Hooks.defaultErrorHandler` (RxCocoa
    /// stops a debug build there; this package never crashes on it) and the driver
    /// completes.
    public func asDriver() -> Driver<Element> {
        asDriver(onErrorRecover: { error in
            Hooks.defaultErrorHandler([], error)
            return .empty()
        })
    }

    /// The events as a `Signal` (delivered on `SharingScheduler.make()`, replaying
    /// nothing). An error, a bug in the source, is reported and ends the signal, as in
    /// `asDriver()`.
    public func asSignal() -> Signal<Element> {
        asSignal(onErrorRecover: { error in
            Hooks.defaultErrorHandler([], error)
            return .empty()
        })
    }
}
