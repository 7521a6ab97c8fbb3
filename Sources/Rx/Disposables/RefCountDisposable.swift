/// A disposable whose underlying disposable is disposed only once it is disposed itself
/// and every disposable `retain()` handed out is disposed too, as RxSwift's
/// `RefCountDisposable` (used to keep a shared resource alive while its users need it).
public final class RefCountDisposable: Cancelable, Sendable {
    private struct State {
        var disposable: Disposable?
        var isPrimaryDisposed = false
        var count = 0
    }

    private let state: LockedState<State>

    /// Wraps `disposable`.
    public init(disposable: Disposable) {
        state = LockedState(State(disposable: disposable))
    }

    /// Whether the underlying disposable was disposed.
    public var isDisposed: Bool {
        state.withLock { $0.disposable == nil }
    }

    /// A disposable that keeps the underlying one alive until it is disposed; a no-op
    /// disposable once the underlying one is disposed.
    public func retain() -> Disposable {
        let retained = state.withLock { state -> Bool in
            guard state.disposable != nil else { return false }
            state.count += 1
            return true
        }
        guard retained else { return Disposables.create() }
        return Disposables.create { [self] in release() }
    }

    /// Disposes the underlying disposable now if nothing `retain()` handed out is alive,
    /// else when the last of those is disposed.
    public func dispose() {
        let toDispose = state.withLock { state -> Disposable? in
            guard state.disposable != nil, !state.isPrimaryDisposed else { return nil }
            state.isPrimaryDisposed = true
            guard state.count == 0 else { return nil }
            defer { state.disposable = nil }
            return state.disposable
        }
        toDispose?.dispose()
    }

    private func release() {
        let toDispose = state.withLock { state -> Disposable? in
            guard state.disposable != nil, state.count > 0 else { return nil }
            state.count -= 1
            guard state.count == 0, state.isPrimaryDisposed else { return nil }
            defer { state.disposable = nil }
            return state.disposable
        }
        toDispose?.dispose()
    }
}
