/// A group of disposables disposed together.
///
/// Disposables added after the group was disposed are disposed at once.
public final class CompositeDisposable: Cancelable {
    /// A key that removes one disposable from the group.
    public struct DisposeKey: Hashable, Sendable {
        fileprivate let value: Int
    }

    private struct State {
        var disposables: [Int: Disposable]? = [:]
        var nextKey = 0
    }

    private let state = LockedState(State())

    /// Creates an empty group.
    public init() {
        Resources.incrementTotal()
    }

    /// Creates a group of two.
    public init(_ disposable1: Disposable, _ disposable2: Disposable) {
        Resources.incrementTotal()
        _ = insert(disposable1)
        _ = insert(disposable2)
    }

    /// Creates a group of three.
    public init(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable) {
        Resources.incrementTotal()
        _ = insert(disposable1)
        _ = insert(disposable2)
        _ = insert(disposable3)
    }

    /// Creates a group of any number.
    public convenience init(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable,
        _ disposable4: Disposable, _ disposables: Disposable...
    ) {
        self.init(disposables: [disposable1, disposable2, disposable3, disposable4] + disposables)
    }

    /// Creates a group of `disposables`.
    public init(disposables: [Disposable]) {
        Resources.incrementTotal()
        for disposable in disposables { _ = insert(disposable) }
    }

    /// Whether the group has been disposed.
    public var isDisposed: Bool { state.withLock { $0.disposables == nil } }

    /// The number of disposables in the group.
    public var count: Int { state.withLock { $0.disposables?.count ?? 0 } }

    /// Adds `disposable`; returns a key to remove it, or `nil` (having disposed it) if the
    /// group is already disposed.
    @discardableResult
    public func insert(_ disposable: Disposable) -> DisposeKey? {
        let key = state.withLock { state -> DisposeKey? in
            guard state.disposables != nil else { return nil }
            let key = DisposeKey(value: state.nextKey)
            state.nextKey += 1
            state.disposables?[key.value] = disposable
            return key
        }
        if key == nil { disposable.dispose() }
        return key
    }

    /// Removes the disposable for `disposeKey` from the group and disposes it.
    public func remove(for disposeKey: DisposeKey) {
        let removed = state.withLock { $0.disposables?.removeValue(forKey: disposeKey.value) }
        removed?.dispose()
    }

    /// Disposes every disposable in the group.
    public func dispose() {
        let removed = state.withLock { state -> [Int: Disposable]? in
            defer { state.disposables = nil }
            return state.disposables
        }
        guard let removed else { return }
        for key in removed.keys.sorted() { removed[key]?.dispose() }
    }

    deinit {
        Resources.decrementTotal()
    }
}
