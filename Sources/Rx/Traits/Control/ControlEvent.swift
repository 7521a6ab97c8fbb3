/// A type that can be turned into a `ControlEvent`; extensions on it apply to every
/// control event.
public protocol ControlEventType: ObservableType {
    /// This value as a `ControlEvent`.
    func asControlEvent() -> ControlEvent<Element>
}

/// An observable sequence of the things that happen to a user interface element: taps,
/// edits, selections.
///
/// What a control event promises to its observers:
/// - no element on subscription, only the events that happen afterwards;
/// - no error, ever; it completes when the element it watches goes away;
/// - its elements arrive on the main thread.
///
/// The trait itself enforces only one thing: it subscribes to its source on the main
/// thread (`subscribe(on: ConcurrentMainScheduler.instance)`), because controls may only
/// be touched there. The rest is up to whoever creates it: wrap only a source that keeps
/// those promises, or observers that rely on them break.
///
/// ```swift
/// let taps = ControlEvent<Void>(events: button.tapRelay)
/// taps.asSignal().emit(onNext: { viewModel.save() })
/// ```
///
/// It is `Sendable` as `SharedSequence` is: all it holds is an `Observable`, which is.
public struct ControlEvent<PropertyType>: ControlEventType, Sendable {
    /// The type of the events.
    public typealias Element = PropertyType

    /// The source, subscribed on the main thread.
    let events: Observable<PropertyType>

    /// Wraps `events`, which must keep the promises of a control event; subscriptions to
    /// it are made on the main thread.
    public init<Ev: ObservableType>(events: Ev) where Ev.Element == Element {
        self.events = events.subscribe(on: ConcurrentMainScheduler.instance)
    }

    /// Subscribes `observer` to the events; the subscription to the source happens on the
    /// main thread (at once if this is called there, otherwise queued).
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        events.subscribe(observer)
    }

    /// The events as an `Observable`, still subscribed on the main thread.
    public func asObservable() -> Observable<Element> { events }

    /// This control event.
    public func asControlEvent() -> ControlEvent<Element> { self }

    /// The events as an `Infallible`. A control event never fails, so an error that still
    /// arrives is a bug in its source: it goes to `Hooks.defaultErrorHandler` (RxCocoa
    /// stops a debug build there; this package never crashes on it) and the sequence
    /// completes.
    public func asInfallible() -> Infallible<Element> {
        asInfallible(onErrorRecover: { error in
            Hooks.defaultErrorHandler([], error)
            return .empty()
        })
    }
}
