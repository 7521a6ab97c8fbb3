/// A resource that can be released: disposing a subscription cancels it.
///
/// `dispose()` may be called any number of times, from any thread; only the first call
/// has an effect.
public protocol Disposable: Sendable {
    /// Releases the resource.
    func dispose()

    /// Rx's own subscription objects return themselves here, so that an operator keeps
    /// its upstream as one class reference, found without a dynamic cast; every other
    /// disposable keeps the default, `nil`. An implementation detail of `Rx`, like the
    /// standard library's underscored requirements: do not implement it.
    var _rxSubscription: AnyObject? { get }
}

extension Disposable {
    /// `nil`: not one of Rx's own subscription objects.
    @inlinable
    public var _rxSubscription: AnyObject? { nil }
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
