import Foundation
import Leash

/// A write the outbox holds until the server has it: what it sends, and how far it got.
///
/// A snapshot: `outbox.items()` and the outbox's events hand out new ones as the item moves on.
public struct OutboxItem: Sendable, Identifiable, CustomStringConvertible {
    /// Where an item is in its delivery.
    public enum State: Sendable, CustomStringConvertible {
        /// Waiting for its turn in its lane (or for the outbox to resume).
        case pending
        /// On the wire now (or when the process that was sending it ended).
        case sending
        /// Sent, not delivered, and waiting to be sent again at `until`.
        case waiting(until: Date)
        /// Refused for good (a 4xx other than 401, or `maximumAttempts` reached); it stays in
        /// the store, with its error, until retried or discarded.
        case failed(LeashError)

        /// The error of a failed item.
        public var error: LeashError? {
            if case .failed(let error) = self { return error }
            return nil
        }

        /// Whether the item failed for good.
        public var isFailed: Bool { error != nil }

        /// The state in a word, with its date or error.
        public var description: String {
            switch self {
            case .pending: return "pending"
            case .sending: return "sending"
            case .waiting(let until): return "waiting until \(until)"
            case .failed(let error): return "failed: \(error)"
            }
        }
    }

    /// The item's own identity, for `cancel(_:)`, `retry(_:)` and `discard(_:)`.
    public let id: UUID
    /// The value of the idempotency-key header, the same on every attempt: a UUID as a quoted
    /// string (`"…"`), the Structured Field string that the IETF draft defines for the header.
    public let idempotencyKey: String
    /// The lane: items of one lane are delivered one at a time, in enqueue order.
    public let lane: String
    /// The method.
    public let method: HTTPMethod
    /// The path as sent, with its query, relative to the manager's base URL (so a base URL
    /// that changes between launches applies to items already stored).
    public let path: String
    /// How many times the item was sent so far.
    public let attempts: Int
    /// Where it is in its delivery.
    public let state: State
    /// When it was enqueued.
    public let enqueuedAt: Date

    /// The method, path, lane and state.
    public var description: String { "\(method.rawValue) \(path) [\(lane)] \(state), \(attempts) attempt(s)" }
}
