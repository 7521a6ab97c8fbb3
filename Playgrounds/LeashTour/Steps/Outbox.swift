import Foundation
import LeashOutbox
import LoopbackServer
import RxLeash

extension Tour {
    /// Writes made offline wait on disk, survive a restart, and reach the server once each,
    /// though the server loses some answers.
    func outbox() {
        step("Durable writes: an outbox that outlives the app", needsLocalServer: true) {
            guard let server = api.server else { return }
            let effects = server.idempotentRoute(method: "POST", path: "/tour/notes", seed: 2026)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("leash-tour-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("outbox.sqlite")
            let client = Client(manager: try Manager.Builder().url(api.baseURL).timeout(5).build())
            var options = OutboxOptions()
            options.initialRetryDelay = 0.05

            say(
                """
                An Outbox keeps writes in an SQLite file until the server has them. Offline
                (paused here), three notes go in: each is on disk when enqueue returns.
                """)
            let offline = try Outbox(client: client, storedAt: file, options: options)
            offline.pause()
            for text in ["milk", "eggs", "bread"] {
                try offline.enqueue(TourNote(text: text), lane: "notes")
            }
            offline.close()  // as if the app were killed
            check(effects.requestCount == 0, "nothing was sent while offline")

            say(
                """
                The app starts again and opens the outbox on the same file. The server, which
                deduplicates by Idempotency-Key, loses half of its answers after doing the
                work: the outbox asks again with the same key, and gets the answer kept for it.
                """)
            effects.dropResponseProbability = 0.5
            let online = try Outbox(client: client, storedAt: file, options: options)
            let left = try online.rx.pendingCount.filter { $0 == 0 }.take(1).toBlocking(timeout: 30).first()
            online.close()
            let texts = effects.effects.compactMap { try? JSONDecoder().decode(TourNote.self, from: $0.body).text }
            say(
                """
                   \(effects.requestCount) requests for \(effects.effects.count) writes; the server applied:
                   \(texts.joined(separator: ", ")).
                """)
            check(left == 0, "the reopened outbox delivered everything the first one stored")
            check(texts == ["milk", "eggs", "bread"], "each note was applied exactly once, in order")
            check(effects.requestCount > 3, "lost answers were asked for again, with the same keys")
        }
    }
}

/// `POST /tour/notes` with a note.
struct TourNote: Endpoint, Codable {
    let text: String
    var path: String { "/tour/notes" }
    var method: HTTPMethod { .post }
    var parameters: Any? { ["text": text] }

    enum CodingKeys: String, CodingKey { case text }
}
