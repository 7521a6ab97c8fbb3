import Foundation
import Leash
import Rx

extension Reactive where Base: Outbox {
    /// Enqueues `endpoint` in `lane` when subscribed (cold, as every `client.rx` form), and
    /// succeeds with the item once it is on disk; fails with what `Outbox.enqueue` throws.
    public func enqueue(_ endpoint: Endpoint, lane: String = "default") -> Single<OutboxItem> {
        let outbox = base
        // An endpoint is not Sendable (its parameters are `Any?`); it is handed over once,
        // to the subscription that encodes it.
        let carried = UncheckedEndpoint(endpoint)
        return Single.create { observer in
            do {
                observer(.success(try outbox.enqueue(carried.endpoint, lane: lane)))
            } catch {
                observer(.failure(error))
            }
            return Disposables.create()
        }
    }

    /// What happens to the outbox's items, hot: a subscriber sees the events from the moment
    /// it subscribes (`outbox.items()` tells what is there already). Completes when the
    /// outbox is closed or released.
    public var events: Observable<OutboxEvent> {
        base.courier.eventLine.events
    }

    /// The number of items waiting for delivery (failed ones not counted): now, then again
    /// after each event that may change it.
    public var pendingCount: Observable<Int> {
        let outbox = base
        let changes = outbox.courier.eventLine.events.filter { event in
            switch event {
            case .enqueued, .delivered, .failed: return true
            case .sending, .retrying: return false
            }
        }
        .map { _ in () }
        // The events first, then the count of now: a change in between is not missed.
        return Observable.merge(changes, .just(()))
            .map { _ in try outbox.pendingCount() }
            .distinctUntilChanged()
    }
}

/// An endpoint carried into a `@Sendable` closure. Safe because the closure only reads it,
/// and `Endpoint`'s requirements are read-only.
struct UncheckedEndpoint: @unchecked Sendable {
    // @unchecked: handed to one subscription, which only reads it.
    let endpoint: Endpoint

    init(_ endpoint: Endpoint) {
        self.endpoint = endpoint
    }
}
