import Leash
import Rx

/// One refresh in flight and the executions waiting for it: each waiter is a subscription
/// to `completion`, which ends as the refresh does (at once for a subscription that comes
/// after the end). Disposing a waiter only removes it: the refresh carries on.
final class RefreshRun: Sendable {
    private struct State {
        var waiters: [(key: Int, observer: Completable.CompletableObserver)] = []
        var nextKey = 0
        var outcome: CompletableEvent?
    }

    private let state = LockedState(State())

    /// Completes when the refresh succeeds; fails with its error.
    var completion: Completable {
        Completable.create { [self] observer in
            enum Registration {
                case ended(CompletableEvent)
                case waiting(key: Int)
            }
            let registration = state.withLock { state -> Registration in
                if let outcome = state.outcome { return .ended(outcome) }
                state.nextKey += 1
                state.waiters.append((state.nextKey, observer))
                return .waiting(key: state.nextKey)
            }
            switch registration {
            case .ended(let outcome):
                observer(outcome)
                return Disposables.create()
            case .waiting(let key):
                return Disposables.create { [weak self] in self?.removeWaiter(key) }
            }
        }
    }

    /// Ends the run: every waiter hears `outcome`, in the order they came.
    func finish(_ outcome: CompletableEvent) {
        let waiters = state.withLock { state -> [Completable.CompletableObserver] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.waiters.removeAll() }
            return state.waiters.map(\.observer)
        }
        for waiter in waiters { waiter(outcome) }
    }

    private func removeWaiter(_ key: Int) {
        // Taken out under the lock, released after it: it may hold the app's objects.
        let removed = state.withLock { state -> Completable.CompletableObserver? in
            guard let index = state.waiters.firstIndex(where: { $0.key == key }) else { return nil }
            return state.waiters.remove(at: index).observer
        }
        withExtendedLifetime(removed) {}
    }
}
