/// Something that receives the events of a sequence.
///
/// An observer is called serially: never from two threads at the same time. It may be
/// called from any thread, one event after another.
public protocol ObserverType {
    /// The type of element the observer receives.
    associatedtype Element

    /// Delivers one event.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// Delivers `next(element)`.
    @inlinable public func onNext(_ element: Element) { on(.next(element)) }

    /// Delivers `completed`.
    @inlinable public func onCompleted() { on(.completed) }

    /// Delivers `error(error)`.
    @inlinable public func onError(_ error: Swift.Error) { on(.error(error)) }

    /// Wraps this observer in `AnyObserver`.
    @inlinable public func asObserver() -> AnyObserver<Element> { AnyObserver(self) }

    /// An observer that transforms elements with `transform` before giving them to this one.
    public func mapObserver<Result>(_ transform: @escaping (Result) throws -> Element) -> AnyObserver<Result> {
        AnyObserver { event in self.on(event.map(transform)) }
    }
}
