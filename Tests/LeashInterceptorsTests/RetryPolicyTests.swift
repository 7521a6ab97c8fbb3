import Foundation
import Leash
import LeashInterceptors
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `RetryPolicy` on its own: the backoff, jitter, which failures it retries, and how it
/// reads `Retry-After`.
final class RetryPolicyTests: RetryTestCase {
    private let epoch = Date(timeIntervalSince1970: 0)

    private func statusFailure(_ status: Int, retryAfter: String? = nil, headerName: String = "Retry-After")
        -> LeashError
    {
        let headers = retryAfter.map { [headerName: $0] } ?? [:]
        let response = HTTPURLResponse(
            url: URL(string: "https://api.example.com/items")!, statusCode: status, httpVersion: "HTTP/1.1",
            headerFields: headers)
        return .unacceptableStatusCode(
            StatusCodeFailure(statusCode: status, headers: HTTPHeaders(headers), body: Data(), response: response))
    }

    private func delay(_ policy: RetryPolicy, retryAfter: String, status: Int = 503, now: Date? = nil)
        -> TimeInterval?
    {
        policy.retryDelay(
            after: statusFailure(status, retryAfter: retryAfter), method: .get, attempt: 1, now: now ?? epoch)
    }

    // MARK: Backoff

    func testBackoff_growsByTheMultiplierFromTheBase() {
        let policy = exactRetryPolicy(baseDelay: 0.5, multiplier: 2, maximumDelay: 100)
        XCTAssertEqual((1...5).map { policy.backoff(afterAttempt: $0) }, [0.5, 1, 2, 4, 8])
    }

    func testBackoff_isCappedAtTheMaximumDelay() {
        let policy = exactRetryPolicy(baseDelay: 1, multiplier: 10, maximumDelay: 50)
        XCTAssertEqual((1...4).map { policy.backoff(afterAttempt: $0) }, [1, 10, 50, 50])
    }

    func testBackoff_hugeAttemptOrInfiniteMaximum_staysFinite() {
        XCTAssertEqual(exactRetryPolicy(maximumDelay: 30).backoff(afterAttempt: 5000), 30)
        let unbounded = exactRetryPolicy(maximumDelay: .infinity)
        XCTAssertEqual(unbounded.backoff(afterAttempt: 5000), 365 * 24 * 3600, "capped at a year")
    }

    func testBackoff_outOfRangeSettings_areMadeSafe() {
        XCTAssertEqual(exactRetryPolicy(baseDelay: -3).backoff(afterAttempt: 2), 0)
        XCTAssertEqual(exactRetryPolicy(baseDelay: .nan).backoff(afterAttempt: 2), 0)
        XCTAssertEqual(exactRetryPolicy(baseDelay: 2, multiplier: 0.1).backoff(afterAttempt: 3), 2, "shrinking is 1")
        XCTAssertEqual(exactRetryPolicy(baseDelay: 2, multiplier: .nan).backoff(afterAttempt: 3), 2)
        XCTAssertEqual(exactRetryPolicy(baseDelay: 2, maximumDelay: -1).backoff(afterAttempt: 1), 0)
        XCTAssertEqual(exactRetryPolicy(baseDelay: 2).backoff(afterAttempt: 0), 2, "attempts count from 1")
    }

    // MARK: Jitter

    func testJitter_full_scalesTheWholeBackoff() {
        let policy = RetryPolicy(baseDelay: 8, jitter: .full, random: .constant(0.25))
        XCTAssertEqual(policy.jitteredBackoff(afterAttempt: 1), 2)
        XCTAssertEqual(policy.jitteredBackoff(afterAttempt: 2), 4)
    }

    func testJitter_equal_keepsHalfTheBackoff() {
        XCTAssertEqual(
            RetryPolicy(baseDelay: 8, jitter: .equal, random: .constant(0)).jitteredBackoff(afterAttempt: 1), 4)
        XCTAssertEqual(
            RetryPolicy(baseDelay: 8, jitter: .equal, random: .constant(1)).jitteredBackoff(afterAttempt: 1), 8)
    }

    func testJitter_none_ignoresTheRandomSource() {
        XCTAssertEqual(
            RetryPolicy(baseDelay: 8, jitter: .none, random: .constant(0)).jitteredBackoff(afterAttempt: 1), 8)
    }

    func testJitter_randomValuesOutOfRange_areClamped() {
        XCTAssertEqual(RetryPolicy(baseDelay: 8, random: .constant(7)).jitteredBackoff(afterAttempt: 1), 8)
        XCTAssertEqual(RetryPolicy(baseDelay: 8, random: .constant(-2)).jitteredBackoff(afterAttempt: 1), 0)
        XCTAssertEqual(RetryPolicy(baseDelay: 8, random: .constant(.nan)).jitteredBackoff(afterAttempt: 1), 0)
    }

    func testJitter_systemSource_staysWithinTheBackoff() {
        let policy = RetryPolicy(baseDelay: 8, jitter: .full)
        for _ in 0..<200 {
            XCTAssertTrue((0...8).contains(policy.jitteredBackoff(afterAttempt: 1)))
        }
    }

    // MARK: Which failures

    func testIsRetryable_classifiesFailures() {
        let policy = RetryPolicy.default
        XCTAssertTrue(policy.isRetryable(statusFailure(503)))
        XCTAssertTrue(policy.isRetryable(LeashError.transport(URLError(.timedOut))))
        XCTAssertFalse(policy.isRetryable(statusFailure(404)))
        XCTAssertFalse(policy.isRetryable(LeashError.transport(URLError(.badURL))))
        XCTAssertFalse(policy.isRetryable(LeashError.cancelled))
        XCTAssertFalse(policy.isRetryable(LeashError.timeout(seconds: 1)))
        XCTAssertFalse(policy.isRetryable(LeashError.invalidResponse(reason: "garbage")))
        XCTAssertFalse(policy.isRetryable(URLError(.timedOut)), "only Leash's errors, as the pipeline makes them")
    }

    func testRetryDelay_nilWhenNoAttemptIsLeftOrTheMethodIsNotRetried() {
        let policy = exactRetryPolicy(maximumAttempts: 3, baseDelay: 1)
        XCTAssertEqual(policy.retryDelay(after: statusFailure(503), method: .get, attempt: 2, now: epoch), 3)
        XCTAssertNil(policy.retryDelay(after: statusFailure(503), method: .get, attempt: 3, now: epoch))
        XCTAssertNil(policy.retryDelay(after: statusFailure(503), method: .post, attempt: 1, now: epoch))
        XCTAssertNil(policy.retryDelay(after: statusFailure(400), method: .get, attempt: 1, now: epoch))
        XCTAssertNil(
            exactRetryPolicy(maximumAttempts: 0).retryDelay(
                after: statusFailure(503), method: .get, attempt: 1, now: epoch))
    }

    // MARK: Retry-After

    func testRetryAfter_deltaSeconds() {
        let policy = exactRetryPolicy(baseDelay: 1)
        XCTAssertEqual(delay(policy, retryAfter: "42"), 42)
        XCTAssertEqual(delay(policy, retryAfter: " 5 "), 5, "surrounding spaces are allowed")
        XCTAssertEqual(delay(policy, retryAfter: "0"), 0)
    }

    func testRetryAfter_allThreeHTTPDateForms() {
        let policy = exactRetryPolicy(baseDelay: 1, maximumDelay: 1000)
        // 06 Nov 1994 08:49:37 GMT, read 100 s before.
        let now = Date(timeIntervalSince1970: 784_111_777 - 100)
        XCTAssertEqual(delay(policy, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT", now: now), 100)
        XCTAssertEqual(delay(policy, retryAfter: "Sunday, 06-Nov-94 08:49:37 GMT", now: now), 100)
        XCTAssertEqual(delay(policy, retryAfter: "Sun Nov  6 08:49:37 1994", now: now), 100)
    }

    func testRetryAfter_dateInThePast_isNoWait() {
        let now = Date(timeIntervalSince1970: 784_111_777 + 60)
        XCTAssertEqual(delay(exactRetryPolicy(baseDelay: 9), retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT", now: now), 0)
    }

    func testRetryAfter_isCappedAtTheMaximumDelay() {
        let policy = exactRetryPolicy(baseDelay: 1, maximumDelay: 20)
        XCTAssertEqual(delay(policy, retryAfter: "86400"), 20)
        XCTAssertEqual(delay(policy, retryAfter: String(repeating: "9", count: 400)), 20, "too long for an Int")
    }

    func testRetryAfter_malformed_fallsBackToTheBackoff() {
        let policy = exactRetryPolicy(baseDelay: 3)
        for header in ["", "soon", "-1", "1.5", "1e3", "Sun, 06 Nov 1994", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            XCTAssertEqual(delay(policy, retryAfter: header), 3, "\"\(header)\"")
        }
    }

    func testRetryAfter_headerNameIsCaseInsensitive() {
        let failure = statusFailure(429, retryAfter: "11", headerName: "retry-after")
        XCTAssertEqual(exactRetryPolicy().retryDelay(after: failure, method: .get, attempt: 1, now: epoch), 11)
    }

    func testRetryAfter_onlyOnTheConfiguredStatuses() {
        var policy = exactRetryPolicy(baseDelay: 2)
        XCTAssertEqual(delay(policy, retryAfter: "30", status: 500), 2, "500 is retried, but its header not read")
        policy.retryAfterStatusCodes.insert(500)
        XCTAssertEqual(delay(policy, retryAfter: "30", status: 500), 30)
    }
}
