import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LeashTesting
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code of the README's "Retries and shared requests" section,
/// compiled and run: if it stops working, so does this.
final class RetryReadmeExampleTests: LoopbackIntegrationCase {
    private struct Item: Decodable, Equatable {
        let id: Int
    }

    func testReadme_retryInterceptor() throws {
        server.routeSequence(method: "GET", path: "/items", [.status(503), .json(Data(#"[{"id":1}]"#.utf8))])
        let baseURL = server.baseURL.absoluteString

        // README begin: retry
        let policy = RetryPolicy(maximumAttempts: 4, baseDelay: 0.5, multiplier: 2, maximumDelay: 10)
        let manager = try Manager.Builder()
            .url(baseURL)
            .add(interceptor: RetryInterceptor(policy: policy))
            .build()
        let client = Client(manager: manager)
        // README end

        let items = try client.eventStream(RetryEndpoint(path: "/items"), as: [Item].self).toBlocking(timeout: 10)
            .toArray().compactMap(\.value)
        XCTAssertEqual(items, [[Item(id: 1)]])
        XCTAssertEqual(server.requestCount, 2)
    }

    func testReadme_customPolicy() {
        // README begin: custom policy
        var policy = RetryPolicy.default
        policy.retryableMethods.insert(.post)  // our POSTs carry an idempotency key
        policy.retryableStatusCodes.remove(500)
        policy.jitter = .equal
        // README end

        XCTAssertTrue(policy.retryableMethods.contains(.post))
        XCTAssertNil(
            policy.retryDelay(
                after: LeashError.unacceptableStatusCode(
                    StatusCodeFailure(statusCode: 500, headers: [:], body: Data(), response: nil)),
                method: .post, attempt: 1, now: Date()))
    }

    func testReadme_virtualTime() throws {
        // README begin: virtual time
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        transport.stub(.get, path: "/items", .status(503), .json(#"[{"id":1}]"#))
        let manager = try Manager.Builder()
            .url("https://api.example.com")
            .transport(transport)
            .scheduler(scheduler)  // Leash's timeouts and the retry waits run on it
            .add(interceptor: RetryInterceptor(policy: RetryPolicy(baseDelay: 2, jitter: .none)))
            .build()
        let client = Client(manager: manager)

        let observer = scheduler.start { client.eventStream(RetryEndpoint(path: "/items"), as: [Item].self) }

        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertEqual(observer.events.last?.time, 202)  // subscribed at 200, retried 2 s later
        // README end
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [[Item(id: 1)]])
    }

    func testReadme_sharingRequestsInFlight() throws {
        server.route("GET", "/items", response: LoopbackResponse.json(Data(#"[{"id":1}]"#.utf8)).delayed(by: 0.3))
        let baseURL = server.baseURL.absoluteString

        // README begin: sharing
        let manager = try Manager.Builder()
            .url(baseURL)
            .sharesRequestsInFlight()
            .build()
        let client = Client(manager: manager)
        // README end

        let first = client.eventStream(RetryEndpoint(path: "/items"), as: [Item].self)
        let second = client.eventStream(RetryEndpoint(path: "/items"), as: [Item].self)
        let both = try Observable.zip(first.compactMap(\.value), second.compactMap(\.value)).toBlocking(timeout: 10)
            .toArray()
        XCTAssertEqual(both.count, 1)
        XCTAssertEqual(both.first?.0, [Item(id: 1)])
        XCTAssertEqual(both.first?.1, [Item(id: 1)])
        XCTAssertEqual(server.requestCount, 1, "the two executions shared one request")
    }
}
