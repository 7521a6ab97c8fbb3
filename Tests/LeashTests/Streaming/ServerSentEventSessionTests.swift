import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ServerSentEventSession`'s delivery: every event reaches the subscriber through one
/// delivery line, so nothing follows the end or a dispose, whichever connection, timer or
/// `cancelAll()` sends it, and a subscriber that disposes while an event is handed to it
/// hears nothing more from the chunk being parsed.
final class ServerSentEventSessionTests: VirtualTimeTestCase {
    private let prices = PipelineEndpoint(path: "/prices")

    private func event(_ id: Int) -> ServerSentEvent {
        ServerSentEvent(id: "\(id)", data: "\(id)")
    }

    func testDisposingInOnNext_stopsTheRestOfTheChunk_andNoConnectionFollows() throws {
        // Three events in one chunk, a tick after the response's head: the parser hands them
        // on one after another.
        let threeEvents = [event(1), event(2), event(3)].map(\.wireFormat).joined()
        transport.stub(.get, path: "/v1/prices", .chunks(["", threeEvents], contentType: "text/event-stream"))
        let client = try makePipelineClient(transport, scheduler: scheduler)
        var received: [ServerSentEvent] = []
        var subscription: Disposable?

        subscription = client.serverSentEventStream(prices, options: ServerSentEventOptions(reconnecting: true))
            .subscribe(onNext: { event in
                received.append(event)
                subscription?.dispose()
            })
        scheduler.advanceTo(100)

        XCTAssertEqual(received, [event(1)], "nothing after the dispose, not even the chunk's other events")
        XCTAssertEqual(transport.requests.count, 1, "a disposed session does not reconnect")
    }

    func testCancelAllWhileWaitingToReconnect_endsWithCancelled_andNothingAfter() throws {
        // The first connection ends a tick after its event; the next is due 5 s (ticks) later.
        transport.stub(
            .get, path: "/v1/prices", .serverSentEvents([event(1)], every: 1, retry: 5_000),
            .serverSentEvents([event(2)]))
        let client = try makePipelineClient(transport, scheduler: scheduler)
        scheduler.scheduleAt(203) { client.manager.cancelAll() }

        let observer = scheduler.start {
            client.serverSentEventStream(self.prices, options: ServerSentEventOptions(reconnecting: true))
        }

        XCTAssertEqual(observer.events.count, 2, "\(observer.events)")
        XCTAssertEqual(observer.events.first?.value.element?.id, "1")
        guard case .error(LeashError.cancelled)? = observer.events.last?.value else {
            return XCTFail("expected the stream to end with .cancelled, got \(observer.events)")
        }
        XCTAssertEqual(observer.events.last?.time, 203)
        XCTAssertEqual(transport.requests.count, 1, "the reconnection due later never ran")
    }
}
