/// A type that can be turned into a `ControlProperty`; extensions on it apply to every
/// control property.
public protocol ControlPropertyType: ObservableType, ObserverType {
    /// This value as a `ControlProperty`.
    func asControlProperty() -> ControlProperty<Element>
}

/// A value of a user interface element that can be both observed and set: a text field's
/// text, a switch's state.
///
/// Observing it gives the control's current value at once, then each value the user
/// gives it; values set from code are not reported back. Sending it elements sets the
/// value, through the observer it was created with (its "sink").
///
/// What a control property promises to its observers:
/// - the current value on subscription (it replays the latest, as `share(replay: 1)`);
/// - no error, ever; it completes when the element it watches goes away;
/// - its elements arrive on the main thread.
///
/// The trait itself enforces only one thing: it subscribes to its source on the main
/// thread (`subscribe(on: ConcurrentMainScheduler.instance)`), because controls may only
/// be touched there. The rest is up to whoever creates it: wrap only a source that keeps
/// those promises, or observers that rely on them break.
///
/// ```swift
/// let name = ControlProperty<String?>(values: field.textRelay, valueSink: field.rx.text)
/// name.orEmpty.bind(to: viewModel.name).disposed(by: disposeBag)
/// ```
///
/// It is `Sendable` as `SharedSequence` is: all it holds is an `Observable` and an
/// `AnyObserver`, which are.
public struct ControlProperty<PropertyType>: ControlPropertyType, Sendable {
    /// The type of the values.
    public typealias Element = PropertyType

    /// The values, subscribed on the main thread.
    let values: Observable<PropertyType>
    /// Where elements sent to the property go.
    let valueSink: AnyObserver<PropertyType>

    /// A property whose values come from `values` (which must keep the promises of a
    /// control property; subscriptions to it are made on the main thread) and whose
    /// elements go to `valueSink`.
    public init<Values: ObservableType, Sink: ObserverType>(values: Values, valueSink: Sink)
    where Element == Values.Element, Element == Sink.Element {
        self.values = values.subscribe(on: ConcurrentMainScheduler.instance)
        self.valueSink = valueSink.asObserver()
    }

    /// Subscribes `observer` to the values; the subscription to the source happens on the
    /// main thread (at once if this is called there, otherwise queued).
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        values.subscribe(observer)
    }

    /// The values the user gives the control, without the current one that a subscription
    /// starts with. Two in a row may still be equal: "changed" means "the user acted", not
    /// "the value differs".
    public var changed: ControlEvent<PropertyType> {
        ControlEvent(events: values.skip(1))
    }

    /// The values as an `Observable`, still subscribed on the main thread.
    public func asObservable() -> Observable<Element> { values }

    /// This control property.
    public func asControlProperty() -> ControlProperty<Element> { self }

    /// Sets the control's value: an element and completion go to the sink (as in RxCocoa;
    /// a `Binder` sink ignores completion). An error is a bug in what is bound here, so
    /// it never reaches the sink: it goes to `Hooks.defaultErrorHandler`, as `Binder`
    /// reports one (RxCocoa stops a debug build there; this package never crashes on it).
    public func on(_ event: Event<Element>) {
        switch event {
        case .next, .completed: valueSink.on(event)
        case .error(let error): Hooks.defaultErrorHandler([], error)
        }
    }
}

extension ControlPropertyType where Element == String? {
    /// This property as a `String` one: `nil` values read as `""`, and a string sent to
    /// it is set as is. For text controls, whose text is optional although an empty one
    /// usually means the same.
    public var orEmpty: ControlProperty<String> {
        let original: ControlProperty<String?> = asControlProperty()
        let values: Observable<String> = original.values.map { $0 ?? "" }
        let valueSink: AnyObserver<String> = original.valueSink.mapObserver { $0 }
        return ControlProperty<String>(values: values, valueSink: valueSink)
    }
}
