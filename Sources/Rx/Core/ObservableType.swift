/// A type that can be turned into an `Observable`.
public protocol ObservableConvertibleType {
    /// The type of element in the sequence.
    associatedtype Element

    /// The sequence as an `Observable`.
    func asObservable() -> Observable<Element>
}

/// A push-based sequence of elements: the protocol every observable sequence adopts.
///
/// Subscribing starts the work of a cold sequence; disposing the returned `Disposable`
/// cancels it.
public protocol ObservableType: ObservableConvertibleType {
    /// Subscribes `observer` to the sequence's events.
    ///
    /// - Returns: A disposable that ends the subscription.
    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element
}

extension ObservableType {
    /// The sequence as an `Observable`.
    public func asObservable() -> Observable<Element> {
        ObservableTypeAdapter(self)
    }
}

/// Presents a custom `ObservableType` as an `Observable`. Its `subscribe` is trusted to
/// be thread-safe, as the protocol's contract requires.
final class ObservableTypeAdapter<Source: ObservableType>: Observable<Source.Element>, @unchecked Sendable {
    private let source: Source

    init(_ source: Source) {
        self.source = source
        super.init()
    }

    override func run(_ observer: AnyObserver<Source.Element>) -> Disposable {
        source.subscribe(observer)
    }
}

/// Carries a value across a `@Sendable` boundary where the Rx contract, not the compiler,
/// guarantees it is used safely (for example a custom `ObservableType` whose
/// `subscribe` is thread-safe by its own contract).
@usableFromInline
struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline var value: Value

    @inlinable init(_ value: Value) { self.value = value }
}
