import Leash
import Rx

/// The observers of `TokenRefresher.refreshFailures` and the failures on their way to
/// them: published one at a time, in order, never to an observer twice at once, and never
/// under the lock.
final class RefreshFailures: Sendable {
    private struct State {
        var observers: [(key: Int, observer: AnyObserver<LeashError>)] = []
        var nextKey = 0
        /// Failures waiting for the thread that is publishing.
        var pending: [LeashError] = []
        var isPublishing = false
    }

    private let state = LockedState(State())

    /// The failures published from subscription on; never completes.
    var observable: Observable<LeashError> {
        Observable.create { [self] observer in
            let key = state.withLock { state -> Int in
                state.nextKey += 1
                state.observers.append((state.nextKey, observer))
                return state.nextKey
            }
            return Disposables.create { [weak self] in self?.remove(key) }
        }
    }

    /// Publishes `failure` to the current observers (after any still being published).
    func publish(_ failure: LeashError) {
        var next = state.withLock { state -> (LeashError, [AnyObserver<LeashError>])? in
            if state.isPublishing {
                state.pending.append(failure)
                return nil
            }
            state.isPublishing = true
            return (failure, state.observers.map(\.observer))
        }
        while let (current, observers) = next {
            for observer in observers { observer.onNext(current) }
            next = state.withLock { state -> (LeashError, [AnyObserver<LeashError>])? in
                if state.pending.isEmpty {
                    state.isPublishing = false
                    return nil
                }
                return (state.pending.removeFirst(), state.observers.map(\.observer))
            }
        }
    }

    private func remove(_ key: Int) {
        let removed = state.withLock { state -> AnyObserver<LeashError>? in
            guard let index = state.observers.firstIndex(where: { $0.key == key }) else { return nil }
            return state.observers.remove(at: index).observer
        }
        withExtendedLifetime(removed) {}
    }
}
