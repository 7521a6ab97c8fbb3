/// A disposable that is given its underlying disposable once, possibly after it was
/// disposed (then the underlying one is disposed as soon as it is set).
public final class SingleAssignmentDisposable: Cancelable {
    private struct State {
        var disposable: Disposable?
        var isAssigned = false
        var isDisposed = false
    }

    private let state = LockedState(State())

    /// Creates an unassigned disposable.
    public init() {
        Resources.incrementTotal()
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// Sets the underlying disposable. Only the first call counts; a later one disposes
    /// what it was given, since nothing else would.
    public func setDisposable(_ disposable: Disposable) {
        let disposeNow = state.withLock { state -> Bool in
            if state.isAssigned || state.isDisposed { return true }
            state.isAssigned = true
            state.disposable = disposable
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// Disposes the underlying disposable, now or when it is set.
    public func dispose() {
        let disposable = state.withLock { state -> Disposable? in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            defer { state.disposable = nil }
            return state.disposable
        }
        disposable?.dispose()
    }

    deinit {
        Resources.decrementTotal()
    }
}
