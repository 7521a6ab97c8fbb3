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

/// `RetryInterceptor` against a real server on 127.0.0.1, with `URLSessionTransport` and
/// real timers.
final class RetryLoopbackTests: LoopbackIntegrationCase {
    private let okBody = #"{"ok":true}"#

    private func retryingClient(_ policy: RetryPolicy) throws -> Client {
        try makeClient { $0.add(interceptor: RetryInterceptor(policy: policy)) }
    }

    func testRetry_routeFailingTwiceWith503_succeedsOnTheThirdRequest() throws {
        server.routeSequence(
            method: "GET", path: "/flaky", [.status(503), .status(503), .json(Data(okBody.utf8))])
        let client = try retryingClient(exactRetryPolicy(baseDelay: 0.05, multiplier: 2))

        let response = try outcome(client, RetryEndpoint(path: "/flaky"), StringResponseSerializer())

        XCTAssertEqual(response.value, okBody)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(server.requestCount, 3)
    }

    func testRetry_alwaysFailing_theCallerGetsTheLast503AfterTheMaximumAttempts() throws {
        server.route("GET", "/down", response: .text("maintenance", status: 503).header("Retry-After", "0"))
        let client = try retryingClient(exactRetryPolicy(maximumAttempts: 3, baseDelay: 5))

        let response = try outcome(client, RetryEndpoint(path: "/down"), StringResponseSerializer())

        guard case .unacceptableStatusCode(let failure)? = response.error as? LeashError else {
            return XCTFail("expected the 503 failure, got \(response)")
        }
        XCTAssertEqual(failure.statusCode, 503)
        XCTAssertEqual(failure.bodyExcerpt, "maintenance")
        XCTAssertEqual(server.requestCount, 3, "Retry-After: 0 retried at once, three times in all")
    }

    func testRetry_honoursTheServersRetryAfterSeconds() throws {
        server.routeSequence(
            method: "GET", path: "/later",
            [.status(429).header("Retry-After", "1"), .json(Data(okBody.utf8))])
        let client = try retryingClient(exactRetryPolicy(baseDelay: 0))
        let start = Date()

        let response = try outcome(client, RetryEndpoint(path: "/later"), StringResponseSerializer())

        XCTAssertEqual(response.value, okBody)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.99, "waited what the server asked")
        XCTAssertEqual(server.requestCount, 2)
    }

    func testRetry_connectionClosedMidBody_isRetriedWhenItsCodeIsListed() throws {
        server.routeSequence(method: "GET", path: "/cut", [.closeMidBody(), .json(Data(okBody.utf8))])
        // URLSession reports a cut body as `networkConnectionLost` on Apple platforms but as
        // `unknown` on Linux, which no policy should retry by default: list both.
        var policy = exactRetryPolicy(baseDelay: 0.05)
        policy.retryableURLErrorCodes.formUnion([.networkConnectionLost, .unknown])
        let client = try retryingClient(policy)

        let response = try outcome(client, RetryEndpoint(path: "/cut"), StringResponseSerializer())

        XCTAssertEqual(response.value, okBody)
        XCTAssertEqual(server.requestCount, 2)
    }

    func testRetry_post_isNotRetriedByDefault() throws {
        server.routeSequence(method: "POST", path: "/orders", [.status(503), .json(Data(okBody.utf8))])
        let client = try retryingClient(exactRetryPolicy(baseDelay: 0.05))

        let response = try outcome(client, RetryEndpoint(path: "/orders", method: .post), StringResponseSerializer())

        XCTAssertEqual(response.statusCode, 503)
        XCTAssertEqual(server.requestCount, 1)
    }

    func testRetry_disposedDuringTheBackoff_sendsNoFurtherRequest() throws {
        let secondRequest = expectation(description: "a request after dispose")
        secondRequest.isInverted = true
        let requests = SpecLocked(0)
        server.route("GET", "/busy") { _ in
            if requests.withLock({ count -> Int in
                count += 1
                return count
            }) > 1 {
                secondRequest.fulfill()
            }
            return .status(503)
        }
        let client = try retryingClient(exactRetryPolicy(baseDelay: 0.5))
        let firstAnswer = expectation(description: "the first 503 arrived")
        let subscription = client.eventStream(RetryEndpoint(path: "/busy"), serializer: StringResponseSerializer())
            .subscribe(onNext: { event in
                if case .responseReceived = event { firstAnswer.fulfill() }
            })
        wait(for: [firstAnswer], timeout: 10)

        subscription.dispose()

        // Past the 0.5 s backoff: a timer left running would have sent the retry by now.
        wait(for: [secondRequest], timeout: 1.5)
        XCTAssertEqual(server.requestCount, 1)
    }
}
