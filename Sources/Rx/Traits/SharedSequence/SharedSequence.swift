/// How a `SharedSequence` delivers and shares its events: the scheduler its elements
/// arrive on, and how one subscription to its source is shared among its observers.
///
/// `DriverSharingStrategy` (replays the latest element) and `SignalSharingStrategy`
/// (replays nothing) are the two that Rx ships. A strategy's metatype is `Sendable`
/// (`SendableMetatype`): operators reach its scheduler from subscriptions on any thread.
public protocol SharingStrategyProtocol: SendableMetatype {
    /// The scheduler that delivers the sequence's events. It is read when a shared
    /// sequence is created (see `SharingScheduler`).
    static var scheduler: SchedulerType { get }

    /// `source` shared among its observers as this strategy shares.
    static func share<Element>(_ source: Observable<Element>) -> Observable<Element>
}

/// A type that can be turned into a `SharedSequence`.
public protocol SharedSequenceConvertibleType: ObservableConvertibleType {
    /// The strategy of the shared sequence.
    associatedtype SharingStrategy: SharingStrategyProtocol

    /// This value as a `SharedSequence`.
    func asSharedSequence() -> SharedSequence<SharingStrategy, Element>
}

extension SharedSequenceConvertibleType {
    /// The shared sequence as an `Observable`, with the same events.
    public func asObservable() -> Observable<Element> {
        asSharedSequence().asObservable()
    }
}

/// An observable sequence for state and events that a user interface consumes: it never
/// fails, it delivers its events on `SharingStrategy.scheduler`, and its observers share
/// one subscription to its source, as `SharingStrategy.share` says.
///
/// Use it through `Driver` (which replays the latest element to a new observer) or
/// `Signal` (which does not):
///
/// ```swift
/// let title: Driver<String> = client.rx.execute(GetUser(id: 1))
///     .map(\.name)
///     .asDriver(onErrorJustReturn: "")
/// title.drive(onNext: { label.text = $0 })
/// ```
public struct SharedSequence<SharingStrategy: SharingStrategyProtocol, Element>: SharedSequenceConvertibleType,
    Sendable
{
    @usableFromInline let source: Observable<Element>

    /// Wraps `source`, shared as `SharingStrategy` shares; the caller guarantees that
    /// `source` never fails and delivers on the strategy's scheduler.
    init(_ source: Observable<Element>) {
        self.source = SharingStrategy.share(source)
    }

    /// Wraps `source` as it is: for sequences that need no sharing (each subscription
    /// makes its own, identical events).
    init(raw source: Observable<Element>) {
        self.source = source
    }

    /// The sequence as an `Observable`, with the same events.
    public func asObservable() -> Observable<Element> { source }

    /// This sequence.
    public func asSharedSequence() -> SharedSequence<SharingStrategy, Element> { self }
}
