import Foundation
import LoopbackServer
import RxLeash
import RxTestingCore

extension Tour {
    /// Streams: a live Server-Sent Events feed followed across a reconnection, and an NDJSON
    /// feed decoded line by line.
    func streams(_ client: Client) {
        step("Streams: Server-Sent Events and NDJSON lines", needsLocalServer: true) {
            say(
                """
                GET /sse sends three events per connection, each with an id, then closes; with
                reconnecting: true, Leash waits the server's retry time (100 ms) and connects again,
                sending Last-Event-ID, so the feed goes on where it stopped.
                """)
            let events = try client.rx.serverSentEvents(TourFeed(path: "/sse?count=3&retry=100"), reconnecting: true)
                .take(5).toBlocking(timeout: 10).toArray()
            say(events.map { "#\($0.id ?? "-") \($0.data)" }.joined(separator: ", "))
            check(events.map(\.id) == ["1", "2", "3", "4", "5"], "five events, in order, across two connections")
            check(events[3].data == #"{"n":4}"#, "the second connection went on after the last event ID (3)")

            say("GET /ndjson sends ten lines, each written in two halves; each decodes when complete.")
            let items = try client.rx.lines(TourFeed(path: "/ndjson?count=10&split=1"), as: TourItem.self)
                .toBlocking(timeout: 10).toArray()
            say(items.prefix(3).map(\.name).joined(separator: ", ") + ", …")
            check(items.map(\.index) == Array(0..<10), "ten items, one per line, joined across chunks")
        }
    }
}

/// A feed of the tour's server.
private struct TourFeed: Endpoint {
    let path: String
    var method: HTTPMethod { .get }
}

/// One line of `/ndjson`.
private struct TourItem: Decodable {
    let index: Int
    let name: String
}
