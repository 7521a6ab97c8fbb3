import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import Rx
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stream is retried only before its body began: after that a new attempt would deliver
/// the body again from its start (found by the soak: a Server-Sent Event whose data was a
/// half line of one connection glued to the first line of the next).
final class RetryStreamLoopbackTests: LoopbackIntegrationCase {
    private struct Item: Decodable {
        let index: Int
    }

    private func retryingClient(baseURL: URL? = nil) throws -> Client {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: 0.01, jitter: .none)
        return try makeClient {
            $0.url(baseURL ?? self.server.baseURL).add(interceptor: RetryInterceptor(policy: policy))
        }
    }

    func testLinesCutMidBody_endWithTheFailure_neverStartingOverFromTheFirstLine() throws {
        // Each line of /ndjson is about 30 bytes, each in a chunk of its own: the reset
        // falls after a few lines.
        let proxy = try FaultProxy(in: server, plan: .always(.resetInBody(after: 150)))
        defer { proxy.stop() }
        let client = try retryingClient(baseURL: proxy.baseURL)

        let outcome = client.rx.lines(RetryEndpoint(path: "/ndjson?count=20"), as: Item.self)
            .toBlocking(timeout: 20).materialize()

        guard case .failed(let items, let error) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertFalse(items.isEmpty)
        XCTAssertEqual(items.map(\.index), Array(0..<items.count), "each line once, in order")
        guard case .transport? = error as? LeashError else { return XCTFail("\(error)") }
        XCTAssertEqual(proxy.sightings.count, 1, "not retried once lines had gone out")
    }

    func testAStreamRefusedBeforeItsBody_isStillRetried() throws {
        server.routeSequence(
            method: "GET", path: "/feed",
            [.status(503), .text(#"{"index":0}"# + "\n").header("Content-Type", "application/x-ndjson")])
        let client = try retryingClient()

        let items = try client.rx.lines(RetryEndpoint(path: "/feed"), as: Item.self).toBlocking(timeout: 20).toArray()

        XCTAssertEqual(items.map(\.index), [0])
        XCTAssertEqual(server.requestCount, 2)
    }

    func testServerSentEventsCutMidEvent_reconnectAfterTheLastWholeEvent_withNoHalfLineGlued() throws {
        // Every connection is reset 60 bytes into its (chunked) body: past the first event
        // it sends, inside the second. A reset fails the attempt, which the retry policy
        // would run again; a clean close ends it, and the session reconnects.
        for fault in [Fault.resetInBody(after: 60), .truncateBody(after: 60)] {
            let proxy = try FaultProxy(in: server, plan: .always(fault))
            defer { proxy.stop() }
            let client = try retryingClient(baseURL: proxy.baseURL)
            let endpoint = RetryEndpoint(path: "/sse?count=3&retry=10")

            let events = try client.rx.serverSentEvents(endpoint, reconnecting: true).take(3)
                .toBlocking(timeout: 20).toArray()

            XCTAssertEqual(events.map(\.id), ["1", "2", "3"], "\(fault)")
            XCTAssertEqual(events.map(\.data), [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#], "\(fault)")
        }
    }
}
