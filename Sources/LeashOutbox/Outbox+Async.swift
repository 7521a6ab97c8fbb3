import Foundation
import Leash
import Rx

extension Outbox {
    /// `enqueue(_:lane:)` off the caller's thread, for `async` code that must not wait on
    /// the disk (the main actor, say): returns once the item is on disk.
    ///
    /// Named apart from `enqueue` on purpose: an `async` overload of the same name would be
    /// the one Swift picks in every `async` function, and `try outbox.enqueue(…)` there would
    /// no longer compile without `await`.
    public func enqueueInBackground(_ endpoint: Endpoint, lane: String = "default") async throws -> OutboxItem {
        let carried = UncheckedEndpoint(endpoint)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try self.enqueue(carried.endpoint, lane: lane) })
            }
        }
    }

    /// What happens to the items, as an `AsyncSequence` (hot, as `rx.events`): it ends when
    /// the outbox is closed or released, or when the loop stops.
    public var events: AsyncStream<OutboxEvent> {
        rx.events.asInfallible(onErrorRecover: { _ in .empty() }).values
    }
}
