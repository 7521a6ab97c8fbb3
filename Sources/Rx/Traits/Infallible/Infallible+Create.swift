/// An event of an `Infallible`: an element or completion, never an error.
public enum InfallibleEvent<Element> {
    /// The next element.
    case next(Element)
    /// The sequence completed.
    case completed
}

extension InfallibleEvent: Sendable where Element: Sendable {}

extension InfallibleEvent: EventConvertible {
    /// The same event as an `Event`.
    public var event: Event<Element> {
        switch self {
        case .next(let element): return .next(element)
        case .completed: return .completed
        }
    }
}

extension Infallible {
    /// The function through which `Infallible.create` reports events; it may be called
    /// from any thread, one event at a time.
    public typealias InfallibleObserver = @Sendable (InfallibleEvent<Element>) -> Void

    /// A sequence whose subscription runs `subscribe`, which reports events through the
    /// observer it is given and returns a disposable that cancels the work. Events after
    /// completion or disposal are ignored.
    public static func create(subscribe: @escaping @Sendable (@escaping InfallibleObserver) -> Disposable)
        -> Infallible<Element>
    {
        Infallible(
            Observable<Element>.create { observer in
                subscribe { observer.on($0.event) }
            })
    }

    /// A sequence of `element`, then completion, during subscription.
    public static func just(_ element: Element) -> Infallible<Element> {
        Infallible(Observable<Element>.just(element))
    }

    /// A sequence of `element`, then completion, on `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Infallible<Element> {
        Infallible(Observable<Element>.just(element, scheduler: scheduler))
    }

    /// A sequence that completes at once.
    public static func empty() -> Infallible<Element> {
        Infallible(Observable<Element>.empty())
    }

    /// A sequence that never emits and never terminates.
    public static func never() -> Infallible<Element> {
        Infallible(Observable<Element>.never())
    }

    /// A sequence made anew by `observableFactory` for each subscription.
    ///
    /// As in RxSwift, `observableFactory` may throw: its error would end the sequence with
    /// that error, breaking the guarantee.
    public static func deferred(_ observableFactory: @escaping @Sendable () throws -> Infallible<Element>)
        -> Infallible<Element>
    {
        Infallible(Observable<Element>.deferred { try observableFactory().source })
    }

    /// The given elements, then completion.
    public static func of(
        _ elements: Element..., scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Infallible<Element> {
        Infallible(Observable<Element>.from(elements, scheduler: scheduler))
    }

    /// The elements of `array`, then completion.
    public static func from(
        _ array: [Element], scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Infallible<Element> {
        Infallible(Observable<Element>.from(array, scheduler: scheduler))
    }

    /// The elements of `sequence`, then completion.
    public static func from<Sequence: Swift.Sequence>(
        _ sequence: Sequence, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Infallible<Element> where Sequence.Element == Element {
        Infallible(Observable<Element>.from(sequence, scheduler: scheduler))
    }
}
