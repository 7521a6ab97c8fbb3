/// A disposable that only records whether it has been disposed.
public final class BooleanDisposable: Cancelable {
    @usableFromInline let flag: AtomicInt

    /// A disposable that is already disposed.
    public static let booleanDisposableTrue = BooleanDisposable(isDisposed: true)

    /// Creates a disposable that is not disposed.
    public init() {
        flag = AtomicInt(0)
    }

    /// Creates a disposable in the given state.
    public init(isDisposed: Bool) {
        flag = AtomicInt(isDisposed ? 1 : 0)
    }

    /// Whether `dispose()` has been called.
    @inlinable public var isDisposed: Bool { flag.load() != 0 }

    /// Marks the disposable disposed.
    public func dispose() {
        flag.store(1)
    }
}
