import Foundation
import LeashTestSupport
import LeashTesting
import LoopbackServer
import Rx
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `client.rx.stream`, `lines` and `serverSentEvents`: in virtual time (a view model that
/// follows a feed, tested without real time), and against `LoopbackServer` with a token
/// that expires between reconnections.
final class ClientRxStreamTests: LoopbackIntegrationCase {
    private struct Price: Codable, Equatable {
        let cents: Int
    }

    private struct Feed: Endpoint {
        var path: String { "/feed" }
        var method: HTTPMethod { .get }
    }

    private struct Path: Endpoint {
        let path: String
        var method: HTTPMethod { .get }
        init(_ path: String) { self.path = path }
    }

    private struct TokenEndpoint: Endpoint {
        var path: String { "/token" }
        var method: HTTPMethod { .post }
    }

    private struct TokenBody: Codable, Sendable {
        let token: String
    }

    /// What a price view model does with a feed: the latest price as text.
    private static func priceLabels(_ client: Client) -> Observable<String> {
        client.rx.serverSentEvents(Feed(), decoding: Price.self, reconnecting: true, reconnectionDelay: 5)
            .map { "$\($0.cents / 100).\(String(format: "%02d", $0.cents % 100))" }
    }

    func testAViewModelFollowingAFeed_inVirtualTime() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        transport.stub(
            .get, path: "/feed",
            .serverSentEvents(
                [
                    ServerSentEvent(id: "1", data: "{\"cents\":1999}"),
                    ServerSentEvent(id: "2", data: "{\"cents\":2050}"),
                ],
                every: 10),
            StubResponse.serverSentEvents([ServerSentEvent(id: "3", data: "{\"cents\":1875}")]).keepingOpen())
        let client = Client(
            manager: try Manager.Builder().url("https://prices.example.com").transport(transport)
                .scheduler(scheduler).timeout(3600).build())

        let labels = scheduler.start { Self.priceLabels(client) }

        // The first connection ends at 210; the next opens 5 s later and stays open.
        XCTAssertEqual(labels.events, [.next(200, "$19.99"), .next(210, "$20.50"), .next(215, "$18.75")])
        XCTAssertEqual(transport.requests.last?.value(forHTTPHeaderField: "Last-Event-ID"), "2")
    }

    func testRxStreamAndLines_overTheLoopbackServer() throws {
        let client = try makeClient()

        let bytes = try client.rx.stream(Path("/stream/chunks?count=8&size=512")).toBlocking(timeout: 10)
            .toArray().reduce(Data(), +)
        let lines = try client.rx.lines(Path("/ndjson?count=3"), as: String.self).toBlocking(timeout: 10)
            .toArray()

        XCTAssertEqual(bytes, LoopbackServer.patternBytes(in: 0..<4096))
        XCTAssertEqual(lines, (0..<3).map { "{\"index\":\($0),\"name\":\"item-\($0)\"}" })
    }

    /// The token expires between two connections: the second is answered 401, the token
    /// is refreshed once, the connection is retried with `Last-Event-ID`, and the events
    /// go on where they stopped.
    func testServerSentEvents_aTokenExpiringBetweenReconnections_isRefreshed_andTheStreamGoesOn() throws {
        let current = SpecLocked("t0")
        let issued = SpecLocked(0)
        let connections = SpecLocked(0)
        server.route("GET", "/feed") { request in
            guard request.headers["Authorization"] == "Bearer \(current.value)" else { return .status(401) }
            let connection = connections.withLock { count -> Int in
                count += 1
                return count
            }
            // The token expires once the first connection has been served.
            if connection == 1 { current.withLock { $0 = "expired" } }
            let last = Int(request.headers["Last-Event-ID"] ?? "") ?? 0
            let text = (last + 1...last + 2).map { "id: \($0)\ndata: {\"cents\":\($0)}\n\n" }.joined()
            return LoopbackResponse(
                status: 200, headers: ["Content-Type": "text/event-stream"],
                body: Data(("retry: 20\n\n" + text).utf8))
        }
        server.route("POST", "/token") { _ in
            let token = issued.withLock { count -> String in
                count += 1
                return "t\(count)"
            }
            current.withLock { $0 = token }
            return .json(TokenBody(token: token))
        }
        let authenticator = SpecAuthenticator(token: "t0")
        let tokenClient = try makeClient()
        let refresher = TokenRefresher(authenticator: authenticator) {
            tokenClient.eventStream(TokenEndpoint(), as: TokenBody.self)
                .compactMap(\.value)
                .do(onNext: { authenticator.accessToken = $0.token })
                .asCompletable()
        }
        let client = try makeClient { $0.refreshing(with: refresher) }

        let prices = try client.rx.serverSentEvents(Feed(), decoding: Price.self, reconnecting: true)
            .take(6).toBlocking(timeout: 20).toArray()

        XCTAssertEqual(prices, (1...6).map { Price(cents: $0) })
        XCTAssertEqual(issued.value, 1, "one refresh")
        let feedRequests = server.requestLog.filter { $0.path == "/feed" }
        XCTAssertEqual(
            feedRequests.prefix(4).map { $0.headers["Last-Event-ID"] }, [nil, "2", "2", "4"],
            "the 401 and its retry both asked for the events after 2")
        XCTAssertEqual(feedRequests[2].headers["Authorization"], "Bearer t1")
    }
}
