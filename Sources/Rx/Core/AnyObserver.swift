/// A type-erased observer: it forwards each event to an event handler.
///
/// `AnyObserver` is `Sendable` because the Rx contract is that observers are called
/// serially, from whichever thread the source emits on; the handler may capture state
/// that this serial delivery confines, which the compiler cannot see.
public struct AnyObserver<Element>: ObserverType, @unchecked Sendable {
    /// The function that receives the events.
    public typealias EventHandler = (Event<Element>) -> Void

    @usableFromInline let observer: EventHandler

    /// Creates an observer that calls `eventHandler` for each event.
    @inlinable
    public init(eventHandler: @escaping EventHandler) {
        observer = eventHandler
    }

    /// Creates an observer that forwards each event to `observer`.
    @inlinable
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        if let anyObserver = observer as? AnyObserver<Element> {
            self = anyObserver
        } else {
            self.observer = observer.on
        }
    }

    /// Forwards `event` to the event handler.
    @inlinable
    public func on(_ event: Event<Element>) {
        observer(event)
    }

    /// This observer.
    @inlinable
    public func asObserver() -> AnyObserver<Element> { self }
}
