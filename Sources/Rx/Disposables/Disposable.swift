/// A resource that can be released: disposing a subscription cancels it.
///
/// `dispose()` may be called any number of times, from any thread; only the first call
/// has an effect.
public protocol Disposable: Sendable {
    /// Releases the resource.
    func dispose()
}

/// A disposable that can tell whether it has been disposed.
public protocol Cancelable: Disposable {
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }
}

extension Disposable {
    /// Adds this disposable to `bag`, which disposes it when the bag is freed.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}
