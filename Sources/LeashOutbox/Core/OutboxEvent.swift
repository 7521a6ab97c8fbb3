import Foundation
import Leash

/// What happens to the items of an outbox, as `outbox.rx.events` and `outbox.events` tell it.
public enum OutboxEvent: Sendable {
    /// The item is in the store (this process enqueued it).
    case enqueued(OutboxItem)
    /// The item is being sent; its `attempts` counts this send.
    case sending(OutboxItem)
    /// The send failed in a way worth another try, which comes `after` seconds.
    case retrying(OutboxItem, after: TimeInterval, error: LeashError)
    /// The server accepted the item (a 2xx: its status, headers and body are in the extra);
    /// it has left the store.
    case delivered(OutboxItem, ResponseExtra)
    /// The item failed for good: it stays in the store as `.failed`, and its lane goes on.
    case failed(OutboxItem, LeashError)

    /// The item the event is about.
    public var item: OutboxItem {
        switch self {
        case .enqueued(let item), .sending(let item), .retrying(let item, _, _), .delivered(let item, _),
            .failed(let item, _):
            return item
        }
    }
}
