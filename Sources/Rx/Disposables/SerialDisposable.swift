/// Holds one disposable at a time: setting a new one disposes the previous one.
///
/// After `dispose()`, a newly set disposable is disposed at once.
public final class SerialDisposable: Cancelable {
    private struct State {
        var current: Disposable?
        var isDisposed = false
    }

    private let state = LockedState(State())

    /// Creates an empty serial disposable.
    public init() {
        Resources.incrementTotal()
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// The current disposable. Setting it disposes the one before.
    public var disposable: Disposable {
        get { state.withLock { $0.current } ?? Disposables.create() }
        set {
            let toDispose = state.withLock { state -> Disposable? in
                if state.isDisposed { return newValue }
                defer { state.current = newValue }
                return state.current
            }
            toDispose?.dispose()
        }
    }

    /// Disposes the current disposable and every later one.
    public func dispose() {
        let current = state.withLock { state -> Disposable? in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            defer { state.current = nil }
            return state.current
        }
        current?.dispose()
    }

    deinit {
        Resources.decrementTotal()
    }
}
