/// Factories for disposables.
public enum Disposables {
    /// A disposable that does nothing.
    @inlinable
    public static func create() -> Disposable { NopDisposable.instance }

    /// A disposable that runs `dispose` once, on the first `dispose()` call.
    @inlinable
    public static func create(with dispose: @escaping @Sendable () -> Void) -> Cancelable {
        AnonymousDisposable(dispose)
    }

    /// A disposable that disposes both `disposable1` and `disposable2`.
    @inlinable
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        BinaryDisposable(disposable1, disposable2)
    }

    /// A disposable that disposes all three.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable)
        -> Cancelable
    {
        CompositeDisposable(disposable1, disposable2, disposable3)
    }

    /// A disposable that disposes all of `disposables`.
    public static func create(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable,
        _ disposables: Disposable...
    ) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3] + disposables)
    }

    /// A disposable that disposes all of `disposables`.
    public static func create(_ disposables: [Disposable]) -> Cancelable {
        switch disposables.count {
        case 2: return BinaryDisposable(disposables[0], disposables[1])
        default: return CompositeDisposable(disposables: disposables)
        }
    }
}

/// The disposable that does nothing.
@usableFromInline
struct NopDisposable: Disposable {
    @usableFromInline static let instance: Disposable = NopDisposable()

    @inlinable init() {}

    @inlinable func dispose() {}
}

/// Runs an action once, on the first `dispose()`.
@usableFromInline
final class AnonymousDisposable: RxResource, Cancelable, @unchecked Sendable {
    @usableFromInline let state: LockedState<(@Sendable () -> Void)?>

    @inlinable
    init(_ action: @escaping @Sendable () -> Void) {
        state = LockedState(action)
        super.init()
    }

    @usableFromInline var isDisposed: Bool { state.withLock { $0 == nil } }

    @usableFromInline func dispose() {
        let action = state.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }
}

/// Disposes two disposables once.
@usableFromInline
final class BinaryDisposable: RxResource, Cancelable, @unchecked Sendable {
    @usableFromInline let state: LockedState<(Disposable, Disposable)?>

    @inlinable
    init(_ first: Disposable, _ second: Disposable) {
        state = LockedState((first, second))
        super.init()
    }

    @usableFromInline var isDisposed: Bool { state.withLock { $0 == nil } }

    @usableFromInline func dispose() {
        let pair = state.withLock { pair -> (Disposable, Disposable)? in
            defer { pair = nil }
            return pair
        }
        pair?.0.dispose()
        pair?.1.dispose()
    }
}
