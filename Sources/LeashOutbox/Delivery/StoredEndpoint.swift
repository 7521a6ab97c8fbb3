import Foundation
import Leash

/// A stored item as an endpoint again, for the client to send through the whole pipeline
/// (the manager's headers, adapters, interceptors, the credential and its refresher).
struct StoredEndpoint: Endpoint {
    let path: String
    let method: HTTPMethod
    let parameters: Any?
    let headers: [String: String]?
    /// Every 2xx delivers; anything else is the outbox's to classify, whatever the manager
    /// accepts.
    var acceptableStatusCodes: Set<Int>? { Set(200..<300) }

    init(_ record: OutboxRecord, keyHeader: String?) {
        path = record.path
        method = record.method
        parameters = record.body
        var headers = record.headers
        if let keyHeader { headers[keyHeader] = record.idempotencyKey }
        self.headers = headers
    }
}
