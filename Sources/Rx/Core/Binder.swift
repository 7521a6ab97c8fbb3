/// An observer that binds elements to an object: it sets a property or calls a method of
/// `target` for each element, on a scheduler (the main thread by default).
///
/// A binder holds its target weakly: a binding never keeps a view or a view model alive,
/// and once the target is freed, elements are dropped. Binding is for elements only:
/// completion ends nothing, and an error goes to `Hooks.defaultErrorHandler` (RxSwift
/// stops a debug build there; this package never crashes on it).
///
/// ```swift
/// extension Reactive where Base: PriceLabel {
///     var price: Binder<Decimal> { Binder(base) { label, price in label.text = "\(price)" } }
/// }
/// prices.bind(to: label.rx.price).disposed(by: disposeBag)
/// ```
public struct Binder<Value>: ObserverType, Sendable {
    /// The type of element the binder receives.
    public typealias Element = Value

    /// Schedules the binding of one element on the binder's scheduler.
    private let bindOnScheduler: @Sendable (Value) -> Void

    /// Creates a binder that calls `binding` with `target` and each element, on
    /// `scheduler`, for as long as `target` is alive.
    ///
    /// - Parameters:
    ///   - target: The object to bind to; it is not retained.
    ///   - scheduler: Where `binding` runs. The default, `MainScheduler.instance`, runs it
    ///     at once when the element arrives on the main thread, otherwise on the main queue.
    ///     Use a serial scheduler: `binding` touches `target` without any lock.
    ///   - binding: Applies one element to the target.
    public init<Target: AnyObject>(
        _ target: Target, scheduler: ImmediateSchedulerType = MainScheduler.instance,
        binding: @escaping (Target, Value) -> Void
    ) {
        let weakTarget = WeakBindingTarget(target, binding: binding)
        bindOnScheduler = { element in
            // Nothing to cancel: an element already on its way is bound if the target lives.
            _ = scheduler.schedule(element) { element in
                weakTarget.bind(element)
                return Disposables.create()
            }
        }
    }

    /// Binds a `next` element on the scheduler; ignores completion; reports an error to
    /// `Hooks.defaultErrorHandler`, on the calling thread, as `bind(onNext:)` does.
    public func on(_ event: Event<Value>) {
        switch event {
        case .next(let element): bindOnScheduler(element)
        case .error(let error): Hooks.defaultErrorHandler([], error)
        case .completed: break
        }
    }

    /// This binder as an `AnyObserver`.
    public func asObserver() -> AnyObserver<Value> {
        AnyObserver(eventHandler: on)
    }
}

/// A binder's target, held weakly, with the binding that applies an element to it.
///
/// `@unchecked Sendable` although neither the target nor the binding is `Sendable`: the
/// box crosses threads only to reach the binder's scheduler, and the target is read,
/// used and handed to the binding only there, inside the actions the binder schedules
/// (on a serial scheduler, as the binder's documentation asks, never two at once). The
/// weak reference is written once, in `init`, before the box is shared.
final class WeakBindingTarget<Target: AnyObject, Value>: @unchecked Sendable {
    // @unchecked: see above; the target and the binding are touched only on the scheduler.
    private weak var target: Target?
    private let binding: (Target, Value) -> Void

    init(_ target: Target, binding: @escaping (Target, Value) -> Void) {
        self.target = target
        self.binding = binding
    }

    /// Applies `element` to the target, unless the target has been freed.
    func bind(_ element: Value) {
        guard let target else { return }
        binding(target, element)
    }
}
