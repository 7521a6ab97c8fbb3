/// An observable that shares one subscription to its source among its observers, started
/// by `connect()` rather than by subscribing.
public protocol ConnectableObservableType: ObservableType {
    /// Subscribes to the source, so that the observers start receiving its events.
    ///
    /// - Returns: A disposable that disconnects from the source.
    func connect() -> Disposable
}

/// An observable sharing one subscription to its source, started by `connect()`: what
/// `publish()`, `replay(_:)` and `multicast` return.
///
/// ```swift
/// let shared = numbers.publish()
/// _ = shared.subscribe(onNext: { print("a", $0) })
/// _ = shared.subscribe(onNext: { print("b", $0) })
/// let connection = shared.connect()  // both observers see the same elements
/// ```
public class ConnectableObservable<Element>: Observable<Element>, ConnectableObservableType, @unchecked Sendable {
    // Sendable: the base holds no state; subclasses keep theirs behind a lock.

    /// Connects to the source; subclasses implement it.
    public func connect() -> Disposable {
        Disposables.create()
    }
}
