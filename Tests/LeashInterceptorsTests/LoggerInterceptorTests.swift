import Foundation
import Leash
import LeashInterceptors
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries the first attempt once, from the completion stage.
private final class RetryFirstAttempt: CompletionInterceptor, Sendable {
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        if chain.attempt == 1, (try? chain.retry()) != nil { return }
        chain.proceed()
    }
}

/// Adapts each request (a header computed at send time), giving the later stages a new
/// request object.
private struct SigningAdapter: ExecutionInterceptor {
    func intercept(chain: InterceptorChain<Data>) {
        guard var request = chain.request.urlRequest else { return chain.proceed() }
        request.setValue("signed", forHTTPHeaderField: "X-Signature")
        chain.proceed(with: request)
    }
}

private struct Body: Encodable {
    let name: String
}

final class LoggerInterceptorTests: CacheSpecStubTestCase {
    private let url = "\(cacheSpecBaseURL)/expenses/1"

    func testSuccess_logsRequestThenCheckmarkWithStatusAndDurationAtDebugLevel() throws {
        transport.stub(path: "/v1/expenses/1", .json(cacheSpecOldJSON, delay: 2))
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)])

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        XCTAssertEqual(observer.events.last?.value.isCompleted, true)
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .debug, message: "✔✔✔ GET \(url) → 200 in 2.00 s"),
            ])
    }

    func testRequestAdaptedAfterTheLogger_andRedirected_keepsItsDuration() throws {
        transport.stub(
            path: "/v1/expenses/1",
            StubResponse(status: 302, headers: ["Location": "/v1/expenses/2"], delay: 1))
        transport.stub(path: "/v1/expenses/2", .json(cacheSpecOldJSON, delay: 2))
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger), SigningAdapter()])

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        XCTAssertEqual(observer.events.last?.value.isCompleted, true)
        XCTAssertEqual(
            transport.requests.last?.value(forHTTPHeaderField: "X-Signature"), "signed", "the adapted request went out")
        XCTAssertEqual(
            logger.messages,
            ["👉👉👉 GET \(url)", "✔✔✔ GET \(cacheSpecBaseURL)/expenses/2 → 200 in 3.00 s"],
            "timed from the first request, through the adapter and the redirect")
    }

    func testTransportFailure_logsOneErrorLine_withTheRequestAndTheError() throws {
        transport.stub(path: "/v1/expenses/1", .error(.notConnectedToInternet, delay: 30))
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)])

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        let error = try XCTUnwrap(cacheSpecError(observer) as? LeashError)
        // No status: the request got no answer.
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .error, message: "✖✖✖ GET \(url) in 30.00 s: \(error)"),
            ])
    }

    func testStatusFailure_logsTheStatusAndTheStatusError_atErrorLevel() throws {
        transport.stub(path: "/v1/expenses/1", .text("nope", status: 404, delay: 5))
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)])

        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }

        let error = try XCTUnwrap(cacheSpecError(observer) as? LeashError)
        XCTAssertEqual(error.statusCode, 404)
        XCTAssertEqual(
            logger.all,
            [
                .init(level: .debug, message: "👉👉👉 GET \(url)"),
                .init(level: .error, message: "✖✖✖ GET \(url) → 404 in 5.00 s: \(error)"),
            ])
    }

    func testALoggerKeepingOnlyErrors_seesWhichRequestFailed() throws {
        transport.stub(path: "/v1/expenses/1", .json(cacheSpecOldJSON, delay: 1))
        transport.stub(.post, path: "/v1/expenses", .text("down", status: 503, delay: 2))
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)])

        _ = scheduler.start {
            Observable.merge(
                client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self).map { _ in () },
                client.eventStream(CacheSpecEndpoint("/expenses", method: .post), as: CacheSpecExpense.self)
                    .map { _ in () }.catch { _ in .empty() })
        }

        // What a logger filtering at `.error` (say `PrintLogger(minimumLevel: .error)`) keeps.
        let errors = logger.all.filter { $0.level >= .error }.map(\.message)
        XCTAssertEqual(errors.count, 1, "\(logger.all)")
        let line = try XCTUnwrap(errors.first)
        XCTAssertTrue(line.hasPrefix("✖✖✖ POST \(cacheSpecBaseURL)/expenses → 503 in 2.00 s: "), line)
        XCTAssertTrue(line.contains("Unacceptable status code 503"), line)
    }

    func testCachedValue_isLoggedAsCached() throws {
        transport.stub(path: "/v1/expenses/1", .json(cacheSpecOldJSON), .json(cacheSpecNewJSON, delay: 2))
        let logger = CacheSpecRecordingLogger()
        let cache = CacheInterceptor(dataStore: InMemoryDataStore())
        cache.register(policy: CachePolicy.CacheAndRenew(), to: "/expenses/[0-9]+")
        let client = try makeClient([LoggerInterceptor(logger: logger), cache])
        _ = cacheSpecRun(client, CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)

        _ = scheduler.start { client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self) }

        XCTAssertEqual(
            logger.messages,
            [
                "👉👉👉 GET \(url)", "✔✔✔ GET \(url) → 200 in 0 ms",
                "👉👉👉 GET \(url)", "✔✔✔ GET \(url) (cache) in 0 ms", "✔✔✔ GET \(url) → 200 in 2.00 s",
            ])
    }

    func testRetry_logsTheRequestAgainWithItsAttempt() throws {
        transport.stub(path: "/v1/expenses/1", .json(cacheSpecOldJSON))
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger), RetryFirstAttempt()])

        _ = scheduler.start { client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self) }

        XCTAssertEqual(
            logger.messages,
            [
                "👉👉👉 GET \(url)", "✔✔✔ GET \(url) → 200 in 0 ms", "👉👉👉 GET \(url) (attempt 2)",
                "✔✔✔ GET \(url) → 200 in 0 ms",
            ])
    }

    func testRequestThatCannotBeBuilt_logsTheEndpointAndTheEncodingError() throws {
        let logger = CacheSpecRecordingLogger()
        let client = try makeClient([LoggerInterceptor(logger: logger)])

        // A body on a GET cannot be encoded: no request, so no 👉 line.
        let observer = scheduler.start {
            client.eventStream(CacheSpecEndpoint("/expenses", parameters: Body(name: "x")), as: CacheSpecExpense.self)
        }

        guard case .encoding? = cacheSpecError(observer) as? LeashError else {
            return XCTFail("expected an encoding error, got \(String(describing: cacheSpecError(observer)))")
        }
        let line = try XCTUnwrap(logger.all.first)
        XCTAssertEqual(logger.all.count, 1, "\(logger.all)")
        XCTAssertEqual(line.level, .error)
        XCTAssertTrue(line.message.hasPrefix("✖✖✖ GET /expenses: Could not encode the parameters: "), line.message)
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testLogLevels_areOrderedDebugInfoError() {
        XCTAssertLessThan(LogLevel.debug, LogLevel.info)
        XCTAssertLessThan(LogLevel.info, LogLevel.error)
        XCTAssertEqual(LogLevel.info.description, "info")
        XCTAssertEqual(PrintLogger().minimumLevel, .debug)
        XCTAssertEqual(PrintLogger(minimumLevel: .error).minimumLevel, .error)
    }
}

extension Event {
    fileprivate var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }
}
