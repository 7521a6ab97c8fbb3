/// A shared sequence for events: it never fails, delivers on the main scheduler
/// (`SharingScheduler.make()`), and shares one subscription among its observers without
/// replaying anything, so that a new observer hears only what happens after it came.
///
/// ```swift
/// let saved: Signal<Void> = saveTaps.asSignal()
/// saved.emit(onNext: { banner.show("Saved") })
/// ```
public typealias Signal<Element> = SharedSequence<SignalSharingStrategy, Element>

/// The strategy of `Signal`: events on `SharingScheduler.make()`, one subscription shared
/// by every observer, nothing replayed (`share(scope: .whileConnected)`).
public struct SignalSharingStrategy: SharingStrategyProtocol {
    /// `SharingScheduler.make()`.
    public static var scheduler: SchedulerType { SharingScheduler.make() }

    /// `source.share(scope: .whileConnected)`.
    public static func share<Element>(_ source: Observable<Element>) -> Observable<Element> {
        source.share(scope: .whileConnected)
    }
}

extension SharedSequenceConvertibleType where SharingStrategy == SignalSharingStrategy {
    /// This sequence as a `Signal`.
    public func asSignal() -> Signal<Element> {
        asSharedSequence()
    }
}
