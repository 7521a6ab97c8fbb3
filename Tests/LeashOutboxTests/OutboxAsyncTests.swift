import Foundation
import Leash
import LeashOutbox
import LeashTestSupport
import LeashTesting
import XCTest

/// The `async` forms: `enqueueInBackground` and `events` as an `AsyncSequence`.
final class OutboxAsyncTests: LeakCheckedTestCase {
    func testEnqueueInBackground_returnsOnceStored_andTheEventsArriveAsAnAsyncSequence() async throws {
        let folder = try TransferTestFolder(removedAfter: self)
        let transport = StubTransport().stub(.post, path: "/notes", .status(201))
        let client = Client(manager: try Manager.Builder().url("https://api.example.com").transport(transport).build())
        let outbox = try Outbox(client: client, storedAt: folder.store())
        outbox.pause()
        let events = outbox.events
        let item = try await outbox.enqueueInBackground(PostNote(text: "a"), lane: "notes")
        XCTAssertEqual(try outbox.items().map(\.id), [item.id])
        outbox.resume()

        var seen: [String] = []
        for await event in events {
            seen.append(EventRecorder.kind(event))
            if case .delivered = event { break }
        }
        XCTAssertEqual(seen, ["enqueued", "sending#1", "delivered(201)"])
        outbox.close()
    }

    func testTheEventsSequence_endsWhenTheOutboxCloses() async throws {
        let folder = try TransferTestFolder(removedAfter: self)
        let client = Client(
            manager: try Manager.Builder().url("https://api.example.com").transport(StubTransport()).build())
        let outbox = try Outbox(client: client, storedAt: folder.store())
        let events = outbox.events
        outbox.close()
        var count = 0
        for await _ in events { count += 1 }
        XCTAssertEqual(count, 0)
        do {
            _ = try await outbox.enqueueInBackground(PostNote(text: "a"))
            XCTFail("enqueued into a closed outbox")
        } catch OutboxError.closed {
        }
    }
}
