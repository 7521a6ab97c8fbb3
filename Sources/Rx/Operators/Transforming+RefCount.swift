/// The owner of an upstream subscription shared through a `TransformingRefCount`.
protocol TransformingRefCountOwner: AnyObject, Sendable {
    /// Disposes the shared upstream (subscription, timers). Called at most once.
    func releaseUpstream()
}

/// Keeps the upstream of `groupBy` and `window` alive while the outer subscription or any
/// subscription to a group or window exists, as RxSwift's `RefCountDisposable` does for them:
/// disposing the outer subscription alone does not cut off groups that are still observed.
///
/// `dispose()` ends the outer subscription's hold; each lease ends one inner subscription's hold;
/// the owner is released when none is left, or at once by `releaseNow()` when the source
/// terminated.
final class TransformingRefCount: RxResource, Cancelable, @unchecked Sendable {
    // Sendable: all mutable state is behind the lock.
    private struct State {
        var owner: TransformingRefCountOwner?
        var leases = 0
        var isOuterDisposed = false

        mutating func takeOwner() -> TransformingRefCountOwner? {
            defer { owner = nil }
            return owner
        }
    }

    private let state = LockedState(State())

    override init() {
        super.init()
    }

    /// Sets the owner to release; called once, right after both exist.
    func setOwner(_ owner: TransformingRefCountOwner) {
        state.withLock { $0.owner = owner }
    }

    /// Whether the outer subscription has ended its hold.
    var isDisposed: Bool { state.withLock { $0.isOuterDisposed } }

    /// Ends the outer subscription's hold.
    func dispose() {
        let owner = state.withLock { state -> TransformingRefCountOwner? in
            guard !state.isOuterDisposed else { return nil }
            state.isOuterDisposed = true
            return state.leases == 0 ? state.takeOwner() : nil
        }
        owner?.releaseUpstream()
    }

    /// Releases the upstream now, whatever holds remain: the source has terminated.
    func releaseNow() {
        state.withLock { $0.takeOwner() }?.releaseUpstream()
    }

    /// Takes a hold for one inner subscription; `false` once the upstream was released.
    func retain() -> Bool {
        state.withLock { state in
            guard state.owner != nil else { return false }
            state.leases += 1
            return true
        }
    }

    /// Ends a hold taken with `retain()`.
    func release() {
        let owner = state.withLock { state -> TransformingRefCountOwner? in
            state.leases -= 1
            return state.isOuterDisposed && state.leases == 0 ? state.takeOwner() : nil
        }
        owner?.releaseUpstream()
    }
}

/// A group of `groupBy` or a window of `window`: subscribing subscribes to the subject and holds
/// the shared upstream until that subscription is disposed.
final class TransformingRefCountedObservable<Element>: Observable<Element>, @unchecked Sendable {
    // Sendable: immutable.
    private let subject: PublishSubject<Element>
    private let refCount: TransformingRefCount

    init(subject: PublishSubject<Element>, refCount: TransformingRefCount) {
        self.subject = subject
        self.refCount = refCount
        super.init()
    }

    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        guard refCount.retain() else { return subject.run(observer) }
        let lease = TransformingRefCountLease(refCount: refCount)
        lease.attach(subject.run(observer))
        return lease
    }
}

/// One subscription to a group or window: disposing it unsubscribes from the subject and ends
/// its hold on the shared upstream.
final class TransformingRefCountLease: SubscriptionCore, @unchecked Sendable {
    // Sendable: `refCount` is immutable; the rest is `SubscriptionCore`'s atomic protocol.
    private let refCount: TransformingRefCount

    init(refCount: TransformingRefCount) {
        self.refCount = refCount
        super.init()
    }

    override func didDispose() {
        refCount.release()
    }
}
