import Foundation
import Leash

/// One row of the store: an item's intent (what to send) and its progress.
struct OutboxRecord {
    /// Where the item is, as the store codes it.
    enum Phase: Int64 {
        case pending = 0
        case sending = 1
        case waiting = 2
        case failed = 3
    }

    let id: UUID
    let idempotencyKey: String
    let lane: String
    let method: HTTPMethod
    let path: String
    /// The endpoint's own headers, with the body's `Content-Type`; never the manager's or a credential.
    let headers: [String: String]
    let body: Data?
    let enqueuedAt: Date
    var attempts: Int
    /// Sends that count towards `maximumAttempts`: not those refused for the credential,
    /// and none before a `retry(_:)` of a failed item.
    var countedAttempts: Int
    var phase: Phase
    var notBefore: Date?
    var error: LeashError?

    /// The public snapshot.
    var item: OutboxItem {
        let state: OutboxItem.State
        switch phase {
        case .pending: state = .pending
        case .sending: state = .sending
        case .waiting: state = .waiting(until: notBefore ?? enqueuedAt)
        case .failed:
            state = .failed(error ?? .invalidResponse(reason: "the item failed without a stored error"))
        }
        return OutboxItem(
            id: id, idempotencyKey: idempotencyKey, lane: lane, method: method, path: path, attempts: attempts,
            state: state, enqueuedAt: enqueuedAt)
    }

    /// The same item in another phase.
    func moved(to phase: Phase, notBefore: Date? = nil, error: LeashError? = nil) -> OutboxRecord {
        var record = self
        record.phase = phase
        record.notBefore = notBefore
        record.error = error
        return record
    }
}
