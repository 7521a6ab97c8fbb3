/// A shared sequence for state: it never fails, delivers on the main scheduler
/// (`SharingScheduler.make()`), and replays its latest element to each new observer while
/// it has any, so that a view bound late still shows the current state.
///
/// ```swift
/// let isBusy: Driver<Bool> = requests.asDriver(onErrorJustReturn: false)
/// isBusy.drive(onNext: { spinner.isHidden = !$0 })
/// ```
public typealias Driver<Element> = SharedSequence<DriverSharingStrategy, Element>

/// The strategy of `Driver`: events on `SharingScheduler.make()`, one subscription shared
/// by every observer, the latest element replayed while connected
/// (`share(replay: 1, scope: .whileConnected)`).
public struct DriverSharingStrategy: SharingStrategyProtocol {
    /// `SharingScheduler.make()`.
    public static var scheduler: SchedulerType { SharingScheduler.make() }

    /// `source.share(replay: 1, scope: .whileConnected)`.
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(replay: 1, scope: .whileConnected)
    }
}

extension SharedSequenceConvertibleType where SharingStrategy == DriverSharingStrategy {
    /// This sequence as a `Driver`.
    public func asDriver() -> Driver<Element> {
        asSharedSequence()
    }
}
