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

/// The Server-Sent Events stream (`client.rx.serverSentEvents`) in virtual time: events at their ticks, reconnection waits
/// on the manager's scheduler, `Last-Event-ID` on each new connection.
final class ServerSentEventVirtualTimeTests: VirtualTimeTestCase {
    private struct Price: Codable, Equatable {
        let cents: Int
    }

    private let prices = PipelineEndpoint(path: "/prices")

    private func client(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makePipelineClient(transport, scheduler: scheduler, configure: configure)
    }

    private func event(_ id: Int, _ data: String) -> ServerSentEvent {
        ServerSentEvent(id: "\(id)", data: data)
    }

    func testEvents_arriveAtTheirTicks_andTheRequestAsksForAnEventStream() throws {
        transport.stub(
            .get, path: "/v1/prices",
            .serverSentEvents([event(1, "a"), ServerSentEvent(event: "tick", data: "b\nc")], every: 3))
        let client = try client()

        let observer = scheduler.start { client.serverSentEventStream(self.prices) }

        XCTAssertEqual(
            observer.events,
            [
                .next(200, event(1, "a")), .next(203, ServerSentEvent(id: "1", event: "tick", data: "b\nc")),
                .completed(203),
            ])
        XCTAssertEqual(transport.requests.first?.value(forHTTPHeaderField: "Accept"), "text/event-stream")
        XCTAssertNil(transport.requests.first?.value(forHTTPHeaderField: "Last-Event-ID"))
    }

    func testReconnecting_waitsTheServersRetryTime_andSendsTheLastEventID() throws {
        transport.stub(
            .get, path: "/v1/prices",
            .serverSentEvents([event(1, "a"), event(2, "b")], every: 1, retry: 5000),
            .serverSentEvents([event(3, "c")]),
            .empty())
        let client = try client()

        let observer = scheduler.start {
            client.serverSentEventStream(self.prices, options: ServerSentEventOptions(reconnecting: true))
        }

        // The first connection ends at 201; the next starts 5 s later; the third gets 204.
        XCTAssertEqual(
            observer.events,
            [
                .next(200, ServerSentEvent(id: "1", data: "a", retry: 5000)), .next(201, event(2, "b")),
                .next(206, event(3, "c")), .completed(211),
            ])
        XCTAssertEqual(
            transport.requests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") }, [nil, "2", "3"])
    }

    func testReconnecting_afterADrop_usesTheDefaultDelay_andKeepsWhatWasComplete() throws {
        let first = "id: 1\ndata: one\n\nid: 2\ndata: tw"
        transport.stub(
            .get, path: "/v1/prices",
            StubResponse.chunks([first], contentType: "text/event-stream").dropping(after: first.utf8.count),
            .serverSentEvents([event(2, "two")]))
        let client = try client()

        let observer = scheduler.start(disposed: 210) {
            client.serverSentEventStream(
                self.prices, options: ServerSentEventOptions(reconnecting: true, reconnectionDelay: 2))
        }

        XCTAssertEqual(observer.events.prefix(2), [.next(200, event(1, "one")), .next(202, event(2, "two"))])
        XCTAssertEqual(transport.requests[1].value(forHTTPHeaderField: "Last-Event-ID"), "1")
    }

    func testWithoutReconnecting_theStreamEndsWithItsConnection_orFailsWithItsDrop() throws {
        transport.stub(
            .get, path: "/v1/prices",
            StubResponse.chunks(["data: x\n\n", "data: y"], contentType: "text/event-stream").dropping(after: 12))
        let client = try client()

        let observer = scheduler.start { client.serverSentEventStream(self.prices) }

        XCTAssertEqual(observer.events.first, .next(200, ServerSentEvent(data: "x")))
        XCTAssertEqual(observer.events.count, 2, "the cut event is not delivered")
        guard case .transport? = observer.events.last?.value.error as? LeashError else {
            return XCTFail("expected the drop, got \(observer.events)")
        }
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testAnotherContentType_failsTheStream_withoutReconnecting() throws {
        transport.stub(.get, path: "/v1/prices", .json("{\"cents\":1}"))
        let client = try client()

        let observer = scheduler.start {
            client.serverSentEventStream(self.prices, options: ServerSentEventOptions(reconnecting: true))
        }

        XCTAssertEqual(observer.events.count, 1)
        guard case .invalidResponse(let reason)? = observer.events.first?.value.error as? LeashError else {
            return XCTFail("expected invalidResponse, got \(observer.events)")
        }
        XCTAssertTrue(reason.contains("application/json"), reason)
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testAnUnacceptableStatus_failsTheStream_withoutReconnecting() throws {
        transport.stub(.get, path: "/v1/prices", .status(500))
        let client = try client()

        let observer = scheduler.start {
            client.serverSentEventStream(self.prices, options: ServerSentEventOptions(reconnecting: true))
        }

        XCTAssertEqual((observer.events.first?.value.error as? LeashError)?.statusCode, 500)
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testDecoding_decodesEachEventsData_andNamesTheEventThatDoesNot() throws {
        transport.stub(
            .get, path: "/v1/prices",
            .serverSentEvents([event(1, "{\"cents\":5}"), event(2, "{\"cents\":")], every: 1))
        let client = try client()

        let observer = scheduler.start { client.serverSentEventStream(self.prices, decoding: Price.self) }

        XCTAssertEqual(observer.events.first, .next(200, Price(cents: 5)))
        guard case .decoding(let type, _, let excerpt)? = observer.events.last?.value.error as? LeashError else {
            return XCTFail("expected a decoding failure, got \(observer.events)")
        }
        XCTAssertTrue(type.contains("event 2"), type)
        XCTAssertEqual(excerpt, "{\"cents\":")
        XCTAssertEqual(observer.events.last?.time, 201)
    }

    func testDisposing_stopsAWaitingReconnection() throws {
        transport.stub(.get, path: "/v1/prices", .serverSentEvents([event(1, "a")]))
        let client = try client()

        let observer = scheduler.start(disposed: 202) {
            client.serverSentEventStream(
                self.prices, options: ServerSentEventOptions(reconnecting: true, reconnectionDelay: 10))
        }
        scheduler.advanceTo(300)

        XCTAssertEqual(observer.events, [.next(200, event(1, "a"))])
        XCTAssertEqual(transport.requests.count, 1, "the reconnection due at 210 never happened")
    }
}
