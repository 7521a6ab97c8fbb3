import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The note every scenario posts: about 200 bytes of JSON, numbered so that the server can
/// tell that notes arrive in order, each once.
struct Note: Codable, Equatable, Sendable {
    let seq: Int
    let author: String
    let text: String
    let tags: [String]

    /// The note numbered `seq`; the server checks each body against it.
    static func numbered(_ seq: Int) -> Note {
        Note(
            seq: seq, author: "benchmark@leash.example",
            text: "A note written offline and kept on disk until the server has it; sent once, in order, with its key.",
            tags: ["outbox", "benchmark", "loopback"])
    }

    /// The size of a note's JSON body as the manager's encoder writes it (seq 100,000).
    static let bodySize = (try? JSONEncoder().encode(numbered(100_000)).count) ?? 0
}

/// `POST /notes` with a note as its JSON body: what the outbox stores, and what the plain
/// loops execute. `key` sets an `Idempotency-Key` header, for the plain loops, so that both
/// sides put the same bytes on the wire (the outbox adds its own item's key).
struct CreateNote: Endpoint, Sendable {
    let note: Note
    var key: String? = nil

    var path: String { "/notes" }
    var method: HTTPMethod { .post }
    var parameters: Any? { note }
    var headers: [String: String]? { key.map { ["Idempotency-Key": $0] } }

    /// A key as the outbox makes one: a UUID as a quoted string.
    static func freshKey() -> String {
        "\"" + UUID().uuidString.lowercased() + "\""
    }
}

/// A client as an app sets one up for its outbox: the server's base URL, everything else
/// default (`URLSessionTransport.shared`, no interceptors). The outbox and the plain loops
/// share it, so they share its connections too.
func makeClient(baseURL: URL) -> Client {
    do {
        return Client(manager: try Manager.Builder().url(baseURL).build())
    } catch {
        fail("cannot build the manager: \(error)")
    }
}
