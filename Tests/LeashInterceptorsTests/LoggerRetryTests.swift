import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LeashTesting
import Rx
import RxLeash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the logger writes when an attempt is retried by an interceptor after the
/// completion stage (the token refresher, `RetryInterceptor`): a retry at info level, and
/// an error only for the failure that ends the execution.
final class LoggerRetryTests: CacheSpecStubTestCase {
    private let url = "\(cacheSpecBaseURL)/expenses/1"
    private let authenticator = SpecAuthenticator(token: "stale")

    /// `/v1/expenses/1` answers 401 unless the request carries `Bearer <accepted>`, after 10 s.
    private func stubProtected(accepting accepted: String) {
        transport.stub(
            matching: { $0.value(forHTTPHeaderField: "Authorization") != "Bearer \(accepted)" },
            [.status(401, delay: 10)])
        transport.stub(
            matching: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer \(accepted)" },
            [.json(cacheSpecOldJSON, delay: 10)])
    }

    /// A refresher on the virtual clock whose refresh stores `token` (or fails).
    private func makeRefresher(storing token: String?) -> TokenRefresher {
        let authenticator = self.authenticator
        return TokenRefresher(authenticator: authenticator, scheduler: scheduler) {
            Completable.create { completed in
                if let token {
                    authenticator.accessToken = token
                    completed(.completed)
                } else {
                    completed(.error(URLError(.userAuthenticationRequired)))
                }
                return Disposables.create()
            }
        }
    }

    func testRefreshed401_isLoggedAsARefreshAndRetry_notAsAnError() throws {
        stubProtected(accepting: "fresh")
        let logger = CacheSpecRecordingLogger()
        let refresher = makeRefresher(storing: "fresh")
        let client = try makeClient([LoggerInterceptor(logger: logger)]) { builder in
            builder.refreshing(with: refresher)
        }

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        let values: [CacheSpecExpense] = observer.events.compactMap { $0.value.element?.value }
        XCTAssertEqual(values, [cacheSpecOld])
        XCTAssertNil(cacheSpecError(observer))
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .info, message: "↻↻↻ GET \(url) → 401 in 10.00 s: refreshing the token and retrying"),
                .init(level: .debug, message: "👉👉👉 GET \(url) (attempt 2)"),
                .init(level: .debug, message: "✔✔✔ GET \(url) → 200 in 10.00 s"),
            ])
    }

    func testSecond401_afterTheRefresh_isTheErrorThatEndsTheExecution() throws {
        stubProtected(accepting: "never-issued")
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)]) { builder in
            builder.refreshing(with: makeRefresher(storing: "fresh"))
        }

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        let error = try XCTUnwrap(cacheSpecError(observer) as? LeashError)
        XCTAssertEqual(error.statusCode, 401)
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .info, message: "↻↻↻ GET \(url) → 401 in 10.00 s: refreshing the token and retrying"),
                .init(level: .debug, message: "👉👉👉 GET \(url) (attempt 2)"),
                .init(level: .error, message: "✖✖✖ GET \(url) → 401 in 10.00 s: \(error)"),
            ])
    }

    func testRefreshForExcludedEndpoint_isNotForecast() throws {
        stubProtected(accepting: "fresh")
        let logger = CacheSpecRecordingLogger()
        let refresher = TokenRefresher(authenticator: authenticator, scheduler: scheduler, excluding: { _ in true }) {
            .empty()
        }
        let client = try makeClient([LoggerInterceptor(logger: logger)]) { $0.refreshing(with: refresher) }

        _ = scheduler.start { client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self) }

        XCTAssertEqual(logger.all.map(\.level), [.debug, .error])
        XCTAssertEqual(logger.messages.first, "👉👉👉 GET \(url)")
        XCTAssertTrue(logger.messages.last?.hasPrefix("✖✖✖ GET \(url) → 401 in 10.00 s: ") == true, "\(logger.all)")
    }

    func testRetryInterceptor_retriedFailuresAreRetries_andTheLastOneIsTheError() throws {
        transport.stub(path: "/v1/expenses/1", .status(503, delay: 5))
        let logger = CacheSpecRecordingLogger()
        let policy = RetryPolicy(maximumAttempts: 2, baseDelay: 1, jitter: .none)
        let client = try makeClient([LoggerInterceptor(logger: logger), RetryInterceptor(policy: policy)])

        _ = scheduler.start { client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self) }

        XCTAssertEqual(logger.all.map(\.level), [.debug, .info, .debug, .error], "\(logger.all)")
        XCTAssertEqual(
            logger.messages.dropLast(),
            [
                "👉👉👉 GET \(url)", "↻↻↻ GET \(url) → 503 in 5.00 s: retrying (attempt 2 of 2)",
                "👉👉👉 GET \(url) (attempt 2)",
            ])
        XCTAssertTrue(logger.messages.last?.hasPrefix("✖✖✖ GET \(url) → 503 in 5.00 s: ") == true, "\(logger.all)")
    }

    func testManagerWithoutRetriesLeft_logsTheForecastFailureAsAnError() throws {
        stubProtected(accepting: "fresh")
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)]) { builder in
            builder.refreshing(with: makeRefresher(storing: "fresh")).maximumRetryCount(0)
        }

        _ = scheduler.start { client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self) }

        XCTAssertEqual(logger.messages.first(where: { $0.hasPrefix("↻") }), nil, "\(logger.all)")
        XCTAssertEqual(logger.all.last?.level, .error)
    }

    // MARK: The execution's end

    func testFailedRefresh_isLoggedAtTheExecutionsEnd_asAnError() throws {
        stubProtected(accepting: "fresh")
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)]) { builder in
            builder.refreshing(with: makeRefresher(storing: nil))
        }

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        guard case .authenticationFailed? = cacheSpecError(observer) as? LeashError else {
            return XCTFail("\(String(describing: cacheSpecError(observer)))")
        }
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .info, message: "↻↻↻ GET \(url) → 401 in 10.00 s: refreshing the token and retrying"),
                .init(
                    level: .error,
                    message: "✗✗✗ GET \(url) in 10.00 s: token refresh failed: \(URLError(.userAuthenticationRequired))"
                ),
            ])
    }

    func testTimeout_isLoggedAtTheExecutionsEnd_onceWithItsDuration() throws {
        stubProtected(accepting: "fresh")
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)]) { $0.timeout(5) }

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        XCTAssertEqual("\(cacheSpecError(observer).map { "\($0)" } ?? "no error")", "\(LeashError.timeout(seconds: 5))")
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .error, message: "✗✗✗ GET \(url) in 5.00 s: \(LeashError.timeout(seconds: 5))"),
            ])
    }

    func testCancelAll_isLoggedAtTheExecutionsEnd_atInfoLevel() throws {
        stubProtected(accepting: "fresh")
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)])
        scheduler.scheduleAt(203) { client.manager.cancelAll() }

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        XCTAssertEqual("\(cacheSpecError(observer).map { "\($0)" } ?? "no error")", "\(LeashError.cancelled)")
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .info, message: "✗✗✗ GET \(url) in 3.00 s: \(LeashError.cancelled)"),
            ])
    }

    func testDisposedExecution_logsNothingMore() throws {
        stubProtected(accepting: "fresh")
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)])

        _ = scheduler.start(disposed: 205) {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        XCTAssertEqual(logger.messages, ["👉👉👉 GET \(url)"])
    }
}
