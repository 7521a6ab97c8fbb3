import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import Rx
import RxLeash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The logger against a real server on 127.0.0.1.
final class LoggerIntegrationTests: LoopbackIntegrationCase {
    func testLogsEachRequestAndItsOutcome_withTheServersURL() throws {
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient { $0.add(interceptor: LoggerInterceptor(logger: logger)) }
        let json = server.url(path: "/json").absoluteString
        let failing = server.url(path: "/status/500").absoluteString

        _ = cacheSpecRun(client, CacheSpecEndpoint("/json"), as: LoopbackSample.self)
        let failure = cacheSpecRun(client, CacheSpecEndpoint("/status/500"), as: LoopbackSample.self)

        // The durations are real ones here: only their form is known.
        let lines = logger.messages.map {
            $0.replacingOccurrences(of: #" in \d+ ms(?=$|: )"#, with: " in N ms", options: .regularExpression)
        }
        let error = try XCTUnwrap(failure.error as? LeashError)
        XCTAssertEqual(
            lines,
            [
                "👉👉👉 GET \(json)", "✔✔✔ GET \(json) → 200 in N ms", "👉👉👉 GET \(failing)",
                "✖✖✖ GET \(failing) → 500 in N ms: \(error)",
            ])
        XCTAssertEqual(logger.all.map(\.level), [.debug, .debug, .debug, .error])
    }

    func testRefreshed401_isARetryAtInfoLevel_thenTheValue_withNoErrorLine() throws {
        let authenticator = SpecAuthenticator(token: "stale")
        server.route("GET", "/items") { request in
            request.headers["Authorization"] == "Bearer fresh"
                ? .json(Data(#"{"id":1,"amount":10}"#.utf8)) : .status(401)
        }
        let refresher = TokenRefresher(authenticator: authenticator) {
            Completable.create { completed in
                authenticator.accessToken = "fresh"
                completed(.completed)
                return Disposables.create()
            }
        }
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient {
            $0.add(interceptor: LoggerInterceptor(logger: logger, verbosity: .headers)).refreshing(with: refresher)
        }
        let items = server.url(path: "/items").absoluteString

        let outcome = cacheSpecRun(client, CacheSpecEndpoint("/items"), as: CacheSpecExpense.self)

        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.responses.map(\.value), [CacheSpecExpense(id: 1, amount: 10)])
        XCTAssertEqual(logger.all.map(\.level), [.debug, .info, .debug, .debug], "\(logger.all)")
        let firstLines = logger.messages.map { $0.split(separator: "\n").first.map(String.init) ?? "" }
        XCTAssertTrue(firstLines[1].hasPrefix("↻↻↻ GET \(items) → 401 in "), firstLines[1])
        XCTAssertTrue(firstLines[1].hasSuffix(" ms: refreshing the token and retrying"), firstLines[1])
        XCTAssertEqual(firstLines[2], "👉👉👉 GET \(items) (attempt 2)")
        XCTAssertTrue(firstLines[3].hasPrefix("✔✔✔ GET \(items) → 200 in "), firstLines[3])
        // Both attempts' credentials are hidden: the stale one and the refreshed one.
        XCTAssertTrue(logger.messages[0].contains("\n    Authorization: ***"), logger.messages[0])
        XCTAssertTrue(logger.messages[2].contains("\n    Authorization: ***"), logger.messages[2])
        XCTAssertFalse(logger.messages.joined().contains("Bearer"), "\(logger.messages)")
    }

    func testFailedRefresh_endsTheLogWithTheRefreshFailure_atErrorLevel() throws {
        let authenticator = SpecAuthenticator(token: "stale")
        server.route("GET", "/items") { _ in .status(401) }
        let refresher = TokenRefresher(authenticator: authenticator) {
            Completable.error(URLError(.userAuthenticationRequired))
        }
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient {
            $0.add(interceptor: LoggerInterceptor(logger: logger)).refreshing(with: refresher)
        }
        let items = server.url(path: "/items").absoluteString

        let outcome = cacheSpecRun(client, CacheSpecEndpoint("/items"), as: CacheSpecExpense.self)

        guard case .authenticationFailed? = outcome.error as? LeashError else {
            return XCTFail("\(String(describing: outcome.error))")
        }
        // The 401 was logged as a refresh to come; the execution's end says it failed, once.
        XCTAssertEqual(logger.all.map(\.level), [.debug, .info, .error], "\(logger.all)")
        XCTAssertEqual(logger.messages.first, "👉👉👉 GET \(items)")
        XCTAssertTrue(logger.messages[1].hasPrefix("↻↻↻ GET \(items) → 401 in "), logger.messages[1])
        let end = logger.messages[2]
        XCTAssertTrue(end.hasPrefix("✗✗✗ GET \(items) in "), end)
        XCTAssertTrue(end.contains(": token refresh failed: "), end)
        XCTAssertTrue(end.hasSuffix("\(URLError(.userAuthenticationRequired))"), end)
    }
}
