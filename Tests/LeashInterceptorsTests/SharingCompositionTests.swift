import Dispatch
import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sharing requests in flight loses nothing of the transport underneath: given a
/// `SharingTransport`, a manager sends through the transport it wraps (its direct path, its
/// per-host limits, the manager's credential handling) and shares in its own pipeline, before
/// the limits; `Manager.Builder.sharesRequestsInFlight()` does the same without a wrapper.
/// (Before, the wrapper hid the transport from the manager: no limits, and a `Basic`
/// challenge went unanswered.)
final class SharingCompositionTests: LoopbackIntegrationCase {
    private static let credential = URLCredential(user: "ada", password: "secret", persistence: .none)

    override func setUpWithError() throws {
        try super.setUpWithError()
        // "ada:secret" in Base64.
        server.route("GET", "/basic-auth") { request in
            if request.headers["Authorization"] == "Basic YWRhOnNlY3JldA==" { return .json(Data(#"{"ok":true}"#.utf8)) }
            return LoopbackResponse(status: 401, headers: ["WWW-Authenticate": #"Basic realm="r""#], body: Data())
        }
        server.route("GET", "/slow", response: LoopbackResponse.json(Data(#"{"n":1}"#.utf8)).delayed(by: 0.3))
    }

    /// Starts `count` executions of `path` at once, from several threads, and waits for
    /// them all: their bodies (as text) and failures.
    private func run(_ count: Int, of path: String, through client: Client) -> (bodies: [String], errors: [String]) {
        let bodies = SpecLocked<[String]>([])
        let errors = SpecLocked<[String]>([])
        let subscriptions = SpecLocked<[Disposable]>([])
        let finished = expectation(description: "\(count) executions of \(path)")
        finished.expectedFulfillmentCount = count
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let subscription = client.eventStream(RetryEndpoint(path: path), serializer: StringResponseSerializer())
                .subscribe(
                    onNext: { event in
                        if let body = event.value { bodies.withLock { $0.append(body) } }
                    },
                    onError: { error in
                        errors.withLock { $0.append("\(error)") }
                        finished.fulfill()
                    },
                    onCompleted: { finished.fulfill() })
            subscriptions.withLock { $0.append(subscription) }
        }
        wait(for: [finished], timeout: 10)
        subscriptions.value.forEach { $0.dispose() }
        return (bodies.value, errors.value)
    }

    func testSharingTransport_keepsTheManagersCredentialHandling_forTheTransportItWraps() throws {
        let client = try makeClient {
            $0.transport(SharingTransport(wrapping: HTTP1Transport())).credentials(.credential(Self.credential))
        }

        let result = run(4, of: "/basic-auth", through: client)

        XCTAssertEqual(result.errors, [], "the challenge was answered with the manager's credential")
        XCTAssertEqual(result.bodies, Array(repeating: #"{"ok":true}"#, count: 4))
        XCTAssertLessThanOrEqual(server.requestCount, 8, "the four shared at most: each tried once and answered once")
    }

    func testSharingTransport_keepsTheWrappedTransportsPerHostLimit() throws {
        let wrapped = try makeClient { $0.transport(HTTP1Transport()) }
        let shared = try makeClient { $0.transport(SharingTransport(wrapping: HTTP1Transport())) }

        XCTAssertNotNil(wrapped.manager.maximumRequestsPerHost)
        XCTAssertEqual(shared.manager.maximumRequestsPerHost, wrapped.manager.maximumRequestsPerHost)
        XCTAssertEqual(shared.manager.maximumRequests, wrapped.manager.maximumRequests)
    }

    func testSharedRequests_neverWaitForAPlace_onlyTheFlightTakesOne() throws {
        let client = try makeClient { $0.sharesRequestsInFlight().maximumRequests(perHost: 1) }

        let started = Date()
        let result = run(10, of: "/slow", through: client)

        XCTAssertEqual(result.errors, [])
        XCTAssertEqual(result.bodies, Array(repeating: #"{"n":1}"#, count: 10))
        XCTAssertEqual(server.requestCount, 1, "ten identical GETs, one request")
        // With one place per host, ten requests one after the other would take ten times the
        // server's 0.3 s: the ten joined one flight instead.
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5)
    }

    func testSharesRequestsInFlight_sharesOnlyIdenticalGETs() throws {
        let client = try makeClient { $0.sharesRequestsInFlight() }
        server.route("POST", "/slow", response: LoopbackResponse.json(Data(#"{"n":2}"#.utf8)).delayed(by: 0.3))
        let bodies = SpecLocked<[String]>([])
        let finished = expectation(description: "six executions")
        finished.expectedFulfillmentCount = 6
        var subscriptions: [Disposable] = []
        let endpoints: [RetryEndpoint] = [
            RetryEndpoint(path: "/slow"), RetryEndpoint(path: "/slow"), RetryEndpoint(path: "/slow", method: .post),
            RetryEndpoint(path: "/slow", method: .post),
            RetryEndpoint(path: "/slow", headers: ["Accept-Language": "fr"]),
            RetryEndpoint(path: "/slow?page=2"),
        ]
        for endpoint in endpoints {
            subscriptions.append(
                client.eventStream(endpoint, serializer: StringResponseSerializer()).subscribe(
                    onNext: { event in
                        if let body = event.value { bodies.withLock { $0.append(body) } }
                    },
                    onError: { XCTFail("\($0)") }, onCompleted: { finished.fulfill() }))
        }
        wait(for: [finished], timeout: 10)
        subscriptions.forEach { $0.dispose() }

        XCTAssertEqual(bodies.value.count, 6)
        XCTAssertEqual(
            server.requestCount, 5, "the two identical GETs shared; each POST, other header or query went alone")
    }

    func testAFlightWhoseOpenerLetGo_stillAnswersTheOthers_andTheLastToLeaveCancelsIt() throws {
        let client = try makeClient { $0.sharesRequestsInFlight() }
        let values = SpecLocked<[String]>([])
        let second = expectation(description: "the second execution's value")
        let opener = client.eventStream(RetryEndpoint(path: "/slow"), serializer: StringResponseSerializer())
            .subscribe(onNext: { event in
                if event.value != nil { XCTFail("the opener let go before the answer") }
            })
        let joiner = client.eventStream(RetryEndpoint(path: "/slow"), serializer: StringResponseSerializer())
            .subscribe(
                onNext: { event in
                    if let body = event.value { values.withLock { $0.append(body) } }
                }, onCompleted: { second.fulfill() })
        waitForServer("the flight's request") { $0.requestCount == 1 }

        opener.dispose()
        wait(for: [second], timeout: 5)

        XCTAssertEqual(values.value, [#"{"n":1}"#])
        XCTAssertEqual(server.clientDisconnectCount, 0, "the request went on for the execution still in it")
        joiner.dispose()

        // Both leave a flight that never answers: its request is cancelled.
        let first = client.eventStream(RetryEndpoint(path: "/hang"), serializer: StringResponseSerializer()).subscribe()
        let other = client.eventStream(RetryEndpoint(path: "/hang"), serializer: StringResponseSerializer()).subscribe()
        waitForServer("the hanging flight's request") { $0.requestCount == 2 }
        first.dispose()
        XCTAssertEqual(server.clientDisconnectCount, 0)
        other.dispose()
        waitForServer("the flight's request cancelled") { $0.clientDisconnectCount == 1 }
    }
}
