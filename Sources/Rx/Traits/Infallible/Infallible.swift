/// A type that is an `Infallible`: a sequence that never fails.
public protocol InfallibleType: ObservableConvertibleType {}

/// An observable sequence that is guaranteed never to emit an error: elements, then
/// perhaps completion. Unlike a shared sequence it shares nothing and replays nothing; it
/// behaves as a plain `Observable` whose errors were dealt with.
///
/// ```swift
/// let names: Infallible<String> = client.rx.execute(GetUsers())
///     .map { $0.map(\.name).joined(separator: ", ") }
///     .asInfallible(onErrorJustReturn: "")
/// names.subscribe(onNext: { label.text = $0 })
/// ```
public struct Infallible<Element>: InfallibleType, Sendable {
    @usableFromInline let source: Observable<Element>

    /// Wraps `source`, which the caller guarantees never fails.
    @inlinable
    init(_ source: Observable<Element>) {
        self.source = source
    }

    /// The sequence as an `Observable`, with the same events.
    @inlinable
    public func asObservable() -> Observable<Element> { source }
}

extension InfallibleType {
    /// Subscribes with a handler for the elements and one for completion.
    ///
    /// The handlers are not `@Sendable`: they run on whichever thread the sequence
    /// delivers on. `onDisposed` runs once, after `onCompleted` or on `dispose()`.
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes with handlers that receive `object` while it is alive; events that
    /// arrive after `object` was freed are ignored. Nothing retains `object`.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onNext: ((Object, Element) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(with: object, onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes with one handler for every event.
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribe(_ on: @escaping (InfallibleEvent<Element>) -> Void) -> Disposable {
        asObservable().subscribe(onNext: { on(.next($0)) }, onCompleted: { on(.completed) })
    }
}
