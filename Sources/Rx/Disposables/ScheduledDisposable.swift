/// A disposable whose `dispose()` disposes the underlying disposable on `scheduler`, as
/// RxSwift's `ScheduledDisposable` (for resources that must be released on a given queue).
public final class ScheduledDisposable: Cancelable, Sendable {
    /// Where the underlying disposable is disposed.
    public let scheduler: ImmediateSchedulerType
    private let disposable: LockedState<Disposable?>

    /// Wraps `disposable`, to be disposed on `scheduler`.
    public init(scheduler: ImmediateSchedulerType, disposable: Disposable) {
        self.scheduler = scheduler
        self.disposable = LockedState(disposable)
    }

    /// Whether `dispose()` was called.
    public var isDisposed: Bool {
        disposable.withLock { $0 == nil }
    }

    /// Schedules the disposal of the underlying disposable on `scheduler` (once).
    public func dispose() {
        guard
            let taken = disposable.withLock({ current -> Disposable? in
                defer { current = nil }
                return current
            })
        else { return }
        _ = scheduler.schedule(()) { _ in
            taken.dispose()
            return Disposables.create()
        }
    }
}
