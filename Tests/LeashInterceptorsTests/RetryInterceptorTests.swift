import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `RetryInterceptor` in virtual time: a `TestScheduler` (one tick a second) runs both the
/// stub transport and the waits, so every retry's tick is exact.
final class RetryInterceptorTests: VirtualTimeTestCase {
    private func client(
        _ policy: RetryPolicy, interceptorScheduler: SchedulerType? = nil, managerScheduler: Bool = true,
        configure: (Manager.Builder) -> Void = { _ in }
    ) throws -> Client {
        try makeRetryClient(
            transport, scheduler: managerScheduler ? scheduler : nil,
            interceptors: [RetryInterceptor(policy: policy, scheduler: interceptorScheduler)], configure: configure)
    }

    private func run(_ client: Client, _ endpoint: Endpoint = RetryEndpoint(), disposed: TestTime = 1000)
        -> TestableObserver<ExecutionEvent<String>>
    {
        scheduler.start(disposed: disposed) { client.eventStream(endpoint, serializer: StringResponseSerializer()) }
    }

    // MARK: Backoff

    func testRetry_twoFailures_retriesAtBaseThenBaseTimesMultiplier() throws {
        transport.stub(path: "/items", .status(503), .status(503), .json(retryBody))
        let client = try client(exactRetryPolicy(baseDelay: 2, multiplier: 3))

        let observer = run(client)

        XCTAssertEqual(
            retryTimeline(observer),
            [
                "sent(1) @ 200", "retrying(2) @ 202", "sent(2) @ 202", "retrying(3) @ 208", "sent(3) @ 208",
                "value(200) @ 208", "completed @ 208",
            ])
        XCTAssertEqual(transport.requests.count, 3)
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [retryBody])
    }

    func testRetry_fullJitter_scalesTheBackoffByTheRandomValue() throws {
        transport.stub(path: "/items", .status(500), .status(500), .json(retryBody))
        let policy = RetryPolicy(baseDelay: 4, multiplier: 2, jitter: .full, random: .constant(0.5))

        let observer = run(try client(policy))

        // 4 × 0.5, then 8 × 0.5.
        XCTAssertEqual(
            retryTimeline(observer).filter { $0.hasPrefix("sent") },
            ["sent(1) @ 200", "sent(2) @ 202", "sent(3) @ 206"])
    }

    func testRetry_equalJitter_waitsHalfTheBackoffPlusTheRandomPartOfTheOtherHalf() throws {
        transport.stub(path: "/items", .status(500), .status(500), .json(retryBody))
        let policy = RetryPolicy(baseDelay: 4, multiplier: 2, jitter: .equal, random: .constant(0.5))

        let observer = run(try client(policy))

        // 2 + 2 × 0.5, then 4 + 4 × 0.5.
        XCTAssertEqual(
            retryTimeline(observer).filter { $0.hasPrefix("sent") },
            ["sent(1) @ 200", "sent(2) @ 203", "sent(3) @ 209"])
    }

    func testRetry_jitterDrawsFromTheRandomSourceOncePerRetry() throws {
        transport.stub(path: "/items", .status(500), .status(500), .json(retryBody))
        let draws = SpecLocked<[Double]>([0.25, 1.0])
        let random = RetryPolicy.RandomSource { draws.withLock { $0.isEmpty ? 0 : $0.removeFirst() } }
        let policy = RetryPolicy(baseDelay: 8, multiplier: 2, jitter: .full, random: random)

        let observer = run(try client(policy))

        // 8 × 0.25, then 16 × 1.
        XCTAssertEqual(
            retryTimeline(observer).filter { $0.hasPrefix("sent") },
            ["sent(1) @ 200", "sent(2) @ 202", "sent(3) @ 218"])
        XCTAssertTrue(draws.value.isEmpty)
    }

    func testRetry_backoffIsCappedAtTheMaximumDelay() throws {
        transport.stub(path: "/items", .status(500))
        let client = try client(exactRetryPolicy(maximumAttempts: 4, baseDelay: 10, multiplier: 10, maximumDelay: 15))

        let observer = run(client)

        XCTAssertEqual(
            retryTimeline(observer).filter { !$0.hasPrefix("retrying") },
            ["sent(1) @ 200", "sent(2) @ 210", "sent(3) @ 225", "sent(4) @ 240", "error(500) @ 240"])
    }

    // MARK: Attempts

    func testRetry_attemptsExhausted_theLastFailureReachesTheCallerWithItsStatusAndBody() throws {
        transport.stub(path: "/items", .text("still busy", status: 503))
        let client = try client(exactRetryPolicy(maximumAttempts: 3, baseDelay: 1, multiplier: 1))

        let observer = run(client)

        XCTAssertEqual(transport.requests.count, 3)
        XCTAssertEqual(retryTimeline(observer).last, "error(503) @ 202")
        guard case .unacceptableStatusCode(let failure)? = retryError(observer) as? LeashError else {
            return XCTFail("expected the 503 failure, got \(retryTimeline(observer))")
        }
        XCTAssertEqual(String(decoding: failure.body, as: UTF8.self), "still busy")
    }

    func testRetry_managersRetryLimitBelowThePolicy_stopsThereWithTheLastFailureNotRetryLimitExceeded() throws {
        transport.stub(path: "/items", .status(502))
        let client = try client(exactRetryPolicy(maximumAttempts: 10, baseDelay: 1, multiplier: 1)) {
            $0.maximumRetryCount(1)
        }

        let observer = run(client)

        XCTAssertEqual(transport.requests.count, 2, "the first attempt and the one retry the manager allows")
        XCTAssertEqual(retryTimeline(observer).last, "error(502) @ 201")
    }

    func testRetry_oneAttempt_neverRetries() throws {
        transport.stub(path: "/items", .status(503))
        let observer = run(try client(exactRetryPolicy(maximumAttempts: 1)))

        XCTAssertEqual(retryTimeline(observer), ["sent(1) @ 200", "error(503) @ 200"])
    }

    func testRetry_success_passesThroughAtOnce() throws {
        transport.stub(path: "/items", .json(retryBody))
        let observer = run(try client(exactRetryPolicy()))

        XCTAssertEqual(retryTimeline(observer), ["sent(1) @ 200", "value(200) @ 200", "completed @ 200"])
    }

    // MARK: Methods

    func testRetry_post_isNotRetriedByDefault() throws {
        transport.stub(path: "/items", .status(503), .json(retryBody))
        let observer = run(try client(exactRetryPolicy()), RetryEndpoint(method: .post))

        XCTAssertEqual(retryTimeline(observer), ["sent(1) @ 200", "error(503) @ 200"])
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testRetry_patch_isNotRetriedByDefault() throws {
        transport.stub(path: "/items", .status(503), .json(retryBody))
        let observer = run(try client(exactRetryPolicy()), RetryEndpoint(method: .patch))

        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(retryTimeline(observer).last, "error(503) @ 200")
    }

    func testRetry_post_isRetriedWhenThePolicyAllowsIt() throws {
        transport.stub(path: "/items", .status(503), .json(retryBody))
        var policy = exactRetryPolicy(baseDelay: 2)
        policy.retryableMethods.insert(.post)

        let observer = run(try client(policy), RetryEndpoint(method: .post))

        XCTAssertEqual(retryTimeline(observer).suffix(2), ["value(200) @ 202", "completed @ 202"])
    }

    func testRetry_idempotentMethods_areRetriedByDefault() throws {
        for method in [HTTPMethod.get, .head, .options, .put, .delete, .trace] {
            let scheduler = TestScheduler(initialClock: 0)
            let transport = StubTransport(scheduler: scheduler)
            transport.stub(path: "/items", .status(503), .empty())
            let client = try makeRetryClient(
                transport, scheduler: scheduler, interceptors: [RetryInterceptor(policy: exactRetryPolicy())])

            let observer = scheduler.start {
                client.eventStream(RetryEndpoint(method: method), serializer: StringResponseSerializer())
            }

            XCTAssertEqual(transport.requests.count, 2, "\(method)")
            XCTAssertEqual(retryTimeline(observer).last, "completed @ 202", "\(method)")
        }
    }

    // MARK: Which failures

    func testRetry_statusesNotRetryable_passThrough() throws {
        for status in [400, 401, 403, 404, 409, 422, 501] {
            transport.stub(path: "/items", .status(status), .json(retryBody))
            let observer = run(try client(exactRetryPolicy()))

            XCTAssertEqual(transport.requests.count, 1, "\(status)")
            XCTAssertEqual(retryTimeline(observer).last, "error(\(status)) @ 200")
            scheduler = TestScheduler(initialClock: 0)
            transport = StubTransport(scheduler: scheduler)
        }
    }

    func testRetry_defaultStatuses_areRetried() throws {
        for status in [408, 429, 500, 502, 503, 504] {
            transport.stub(path: "/items", .status(status), .json(retryBody))
            let observer = run(try client(exactRetryPolicy()))

            XCTAssertEqual(transport.requests.count, 2, "\(status)")
            XCTAssertEqual(retryTimeline(observer).last, "completed @ 202", "\(status)")
            scheduler = TestScheduler(initialClock: 0)
            transport = StubTransport(scheduler: scheduler)
        }
    }

    func testRetry_configuredStatuses_replaceTheDefaults() throws {
        var policy = exactRetryPolicy()
        policy.retryableStatusCodes = [418]
        transport.stub(path: "/items", .status(418), .status(503), .json(retryBody))

        let observer = run(try client(policy))

        XCTAssertEqual(transport.requests.count, 2, "418 retried, then 503 is no longer retryable")
        XCTAssertEqual(retryTimeline(observer).last, "error(503) @ 202")
    }

    func testRetry_acceptedStatus_isAValueAndNotRetried() throws {
        transport.stub(path: "/items", .text("maintenance", status: 503))
        let client = try client(exactRetryPolicy()) { $0.acceptableStatusCodes(200..<600) }

        let observer = run(client)

        XCTAssertEqual(retryTimeline(observer), ["sent(1) @ 200", "value(503) @ 200", "completed @ 200"])
    }

    func testRetry_transientTransportFailures_areRetried() throws {
        for code in [URLError.Code.timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet] {
            transport.stub(path: "/items", .error(code), .json(retryBody))
            let observer = run(try client(exactRetryPolicy()))

            XCTAssertEqual(transport.requests.count, 2, "\(code)")
            XCTAssertEqual(retryTimeline(observer).suffix(2), ["value(200) @ 202", "completed @ 202"], "\(code)")
            scheduler = TestScheduler(initialClock: 0)
            transport = StubTransport(scheduler: scheduler)
        }
    }

    func testRetry_permanentTransportFailures_passThrough() throws {
        for code in [URLError.Code.badURL, .unsupportedURL, .serverCertificateUntrusted] {
            transport.stub(path: "/items", .error(code), .json(retryBody))
            let observer = run(try client(exactRetryPolicy()))

            XCTAssertEqual(transport.requests.count, 1, "\(code)")
            XCTAssertEqual(retryTimeline(observer).last, "error(transport \(code.rawValue)) @ 200")
            scheduler = TestScheduler(initialClock: 0)
            transport = StubTransport(scheduler: scheduler)
        }
    }

    func testRetry_cancelledTransport_isNotRetried() throws {
        transport.stub(path: "/items", .error(.cancelled), .json(retryBody))
        let observer = run(try client(exactRetryPolicy()))

        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(retryTimeline(observer).last, "error(cancelled) @ 200")
    }

    // MARK: Retry-After

    func testRetryAfter_deltaSecondsOn503_replacesTheBackoff() throws {
        transport.stub(
            path: "/items", StubResponse(status: 503, headers: ["Retry-After": "7"]), .json(retryBody))
        let observer = run(try client(exactRetryPolicy(baseDelay: 1)))

        XCTAssertEqual(retryTimeline(observer).suffix(3), ["sent(2) @ 207", "value(200) @ 207", "completed @ 207"])
    }

    func testRetryAfter_httpDateOn429_waitsUntilThatDateOnTheSchedulersClock() throws {
        // The scheduler's clock reads 1970-01-01T00:03:20Z at tick 200; ask for 00:03:32.
        transport.stub(
            path: "/items", StubResponse(status: 429, headers: ["Retry-After": "Thu, 01 Jan 1970 00:03:32 GMT"]),
            .json(retryBody))
        let observer = run(try client(exactRetryPolicy(baseDelay: 1)))

        XCTAssertEqual(retryTimeline(observer).suffix(2), ["value(200) @ 212", "completed @ 212"])
    }

    func testRetryAfter_isCappedAtTheMaximumDelay() throws {
        transport.stub(
            path: "/items", StubResponse(status: 503, headers: ["Retry-After": "3600"]), .json(retryBody))
        let observer = run(try client(exactRetryPolicy(baseDelay: 1, maximumDelay: 10)))

        XCTAssertEqual(retryTimeline(observer).suffix(2), ["value(200) @ 210", "completed @ 210"])
    }

    func testRetryAfter_malformed_fallsBackToTheBackoff() throws {
        for header in ["soon", "-5", "1.5", "Someday, 99 Foo 20xx"] {
            transport.stub(
                path: "/items", StubResponse(status: 503, headers: ["Retry-After": header]), .json(retryBody))
            let observer = run(try client(exactRetryPolicy(baseDelay: 3)))

            XCTAssertEqual(retryTimeline(observer).suffix(2), ["value(200) @ 203", "completed @ 203"], header)
            scheduler = TestScheduler(initialClock: 0)
            transport = StubTransport(scheduler: scheduler)
        }
    }

    func testRetryAfter_onAStatusNotListed_isIgnored() throws {
        transport.stub(
            path: "/items", StubResponse(status: 500, headers: ["Retry-After": "30"]), .json(retryBody))
        let observer = run(try client(exactRetryPolicy(baseDelay: 2)))

        XCTAssertEqual(retryTimeline(observer).suffix(2), ["value(200) @ 202", "completed @ 202"])
    }

    func testRetryAfter_zero_retriesAtOnce() throws {
        transport.stub(
            path: "/items", StubResponse(status: 503, headers: ["Retry-After": "0"]), .json(retryBody))
        let observer = run(try client(exactRetryPolicy(baseDelay: 5)))

        XCTAssertEqual(retryTimeline(observer).suffix(3), ["sent(2) @ 200", "value(200) @ 200", "completed @ 200"])
    }

    // MARK: Scheduling and cancellation

    func testRetry_disposedDuringTheBackoff_sendsNothingMore() throws {
        transport.stub(path: "/items", .status(503), .json(retryBody))
        let client = try client(exactRetryPolicy(baseDelay: 5))

        // Disposed at 203, in the middle of the 5-tick wait; `start` runs every scheduled
        // action to the end, so a timer left behind would still send at 205.
        let observer = run(client, disposed: 203)

        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(retryTimeline(observer), ["sent(1) @ 200"])
    }

    func testRetry_givenScheduler_runsTheWaitsWhenTheManagerHasNone() throws {
        transport.stub(path: "/items", .status(503), .json(retryBody))
        let client = try client(
            exactRetryPolicy(baseDelay: 4), interceptorScheduler: scheduler, managerScheduler: false)

        let observer = run(client)

        XCTAssertEqual(retryTimeline(observer).suffix(3), ["sent(2) @ 204", "value(200) @ 204", "completed @ 204"])
    }

    func testRetry_theExecutionsTimeoutCoversTheWaits() throws {
        transport.stub(path: "/items", .status(503), .json(retryBody))
        let client = try client(exactRetryPolicy(baseDelay: 10)) { $0.timeout(5) }

        let observer = run(client)

        XCTAssertEqual(retryTimeline(observer), ["sent(1) @ 200", "error(timeout) @ 205"])
        XCTAssertEqual(transport.requests.count, 1, "the timeout cancelled the pending retry")
    }

    func testRetry_eachAttemptBuildsTheRequestAnewAndRunsTheInterceptorsAgain() throws {
        transport.stub(path: "/items", .status(503), .status(503), .json(retryBody))
        let attempts = SpecLocked<[Int]>([])
        let spy = RetryAttemptSpy { attempt in attempts.withLock { $0.append(attempt) } }
        let client = try makeRetryClient(
            transport, scheduler: scheduler,
            interceptors: [spy, RetryInterceptor(policy: exactRetryPolicy(baseDelay: 1, multiplier: 1))])

        _ = run(client)

        XCTAssertEqual(attempts.value, [1, 2, 3])
    }
}

/// An execution interceptor that reports each attempt it sees.
private struct RetryAttemptSpy: ExecutionInterceptor {
    let seen: @Sendable (Int) -> Void

    init(_ seen: @escaping @Sendable (Int) -> Void) { self.seen = seen }

    func intercept(chain: InterceptorChain<Data>) {
        seen(chain.attempt)
        chain.proceed()
    }
}
