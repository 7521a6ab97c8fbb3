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

/// The API's error body.
private struct APIError: Decodable, Error, Equatable {
    let code: String
    let message: String
}

/// The app's own error type.
private enum AppError: Error, Equatable {
    case unauthorized
    case server(code: String)
}

/// Records that it ran, and proceeds.
private final class SuccessProbe: SuccessInterceptor, Sendable {
    let calls = CacheSpecList<Int>()
    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        calls.append(response.statusCode)
        chain.proceed()
    }
}

final class ValidatorTests: CacheSpecStubTestCase {
    private let endpoint = CacheSpecEndpoint("/expenses/1")
    private let apiErrorJSON = #"{"code":"limit","message":"Over the limit"}"#

    private func run(_ client: Client, _ endpoint: Endpoint? = nil) -> TestableObserver<
        ExecutionEvent<CacheSpecExpense>
    > {
        let endpoint = endpoint ?? self.endpoint
        return scheduler.start { client.eventStream(endpoint, as: CacheSpecExpense.self) }
    }

    // MARK: StatusValidator

    func testStatusValidator_rejectsWithTheTypedStatusErrorKeepingTheResponse() throws {
        transport.stub(
            path: "/v1/expenses/1",
            StubResponse(status: 409, headers: ["X-Reason": "stale"], body: Data("conflict".utf8)))
        let probe = SuccessProbe()
        // The manager accepts everything: only the validator can fail the execution.
        let client = try makeClient([StatusValidator(acceptableStatusCodes: [200]), probe]) {
            $0.acceptableStatusCodes(100..<600)
        }

        let error = cacheSpecError(run(client))

        guard case .unacceptableStatusCode(let failure)? = error as? LeashError else {
            return XCTFail("expected unacceptableStatusCode, got \(String(describing: error))")
        }
        XCTAssertEqual(failure.statusCode, 409)
        XCTAssertEqual(failure.kind, .client)
        XCTAssertEqual(failure.body, Data("conflict".utf8))
        XCTAssertEqual(failure.headers["X-Reason"], "stale")
        XCTAssertEqual(failure.request?.url?.absoluteString, "\(cacheSpecBaseURL)/expenses/1")
        XCTAssertEqual((error as? LeashError)?.statusCode, 409)
        XCTAssertTrue(probe.calls.all.isEmpty, "a failed validation skips the later success interceptors")
    }

    func testStatusValidator_narrowerThanTheManager_failsStatusesTheManagerAccepts() throws {
        transport.stub(path: "/v1/expenses/1", .json(cacheSpecOldJSON, status: 203))
        let client = try makeClient([StatusValidator(acceptableStatusCodes: [200, 201])])

        XCTAssertEqual((cacheSpecError(run(client)) as? LeashError)?.statusCode, 203)
    }

    func testStatusValidator_acceptableStatus_proceedsToTheValue() throws {
        transport.stub(path: "/v1/expenses/1", .json(cacheSpecOldJSON))
        let probe = SuccessProbe()
        let client = try makeClient([StatusValidator(), probe])

        let observer = run(client)

        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [cacheSpecOld])
        XCTAssertEqual(probe.calls.all, [200])
    }

    func testStatusValidator_mapError_givesTheAppsErrorAndFallsBackToLeashError() throws {
        transport.stub(path: "/v1/expenses/1", .status(401))
        transport.stub(path: "/v1/expenses/2", .status(500))
        let validator = StatusValidator { failure in
            failure.statusCode == 401 || failure.statusCode == 403 ? AppError.unauthorized : nil
        }
        let client = try makeClient([validator])

        let unauthorized = scheduler.start(created: 0, subscribed: 0, disposed: 100) {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }
        let serverError = scheduler.start(created: 100, subscribed: 100, disposed: 1000) {
            client.eventStream(CacheSpecEndpoint("/expenses/2"), as: CacheSpecExpense.self)
        }

        XCTAssertEqual(cacheSpecError(unauthorized) as? AppError, .unauthorized)
        XCTAssertEqual((cacheSpecError(serverError) as? LeashError)?.statusCode, 500)
    }

    // MARK: BodyValidator

    func testBodyValidator_errorStatusWithAPIErrorBody_failsWithTheDecodedErrorUnchanged() throws {
        transport.stub(path: "/v1/expenses/1", .json(apiErrorJSON, status: 422))
        let client = try makeClient([BodyValidator<APIError>()])

        let error = cacheSpecError(run(client))

        XCTAssertEqual(error as? APIError, APIError(code: "limit", message: "Over the limit"))
    }

    func testBodyValidator_bodyThatIsNotAnAPIError_leavesTheStatusErrorWithTheBody() throws {
        transport.stub(path: "/v1/expenses/1", .text("<html>Bad gateway</html>", status: 502))
        let client = try makeClient([BodyValidator<APIError>()])

        let error = cacheSpecError(run(client))

        guard case .unacceptableStatusCode(let failure)? = error as? LeashError else {
            return XCTFail("expected unacceptableStatusCode, got \(String(describing: error))")
        }
        XCTAssertEqual(failure.statusCode, 502)
        XCTAssertEqual(failure.bodyExcerpt, "<html>Bad gateway</html>")
    }

    func testBodyValidator_successStatus_isNotDecodedByDefault() throws {
        // A 2xx body that would decode as an API error is left alone by default.
        transport.stub(path: "/v1/expenses/1", .json(#"{"id":1,"amount":10,"code":"x","message":"y"}"#))
        let client = try makeClient([BodyValidator<APIError>()])

        let observer = run(client)

        XCTAssertNil(cacheSpecError(observer))
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [cacheSpecOld])
    }

    func testBodyValidator_predicate_findsErrorsInSuccessfulResponses() throws {
        transport.stub(path: "/v1/expenses/1", .json(apiErrorJSON))
        transport.stub(path: "/v1/expenses/2", .json(#"{"id":2,"amount":10}"#))
        let client = try makeClient([BodyValidator<APIError>(shouldDecode: { _, _ in true })])

        let withError = scheduler.start(created: 0, subscribed: 0, disposed: 100) {
            client.eventStream(CacheSpecEndpoint("/expenses/1"), as: CacheSpecExpense.self)
        }
        let withValue = scheduler.start(created: 100, subscribed: 100, disposed: 1000) {
            client.eventStream(CacheSpecEndpoint("/expenses/2"), as: CacheSpecExpense.self)
        }

        XCTAssertEqual((cacheSpecError(withError) as? APIError)?.code, "limit")
        XCTAssertEqual(withValue.events.compactMap { $0.value.element?.value }, [CacheSpecExpense(id: 2, amount: 10)])
    }

    func testBodyValidator_makeError_wrapsTheAPIErrorInTheAppsType() throws {
        transport.stub(path: "/v1/expenses/1", .json(apiErrorJSON, status: 500))
        let validator = BodyValidator<APIError> { apiError, response in
            XCTAssertEqual(response.statusCode, 500)
            return AppError.server(code: apiError.code)
        }
        let client = try makeClient([validator])

        XCTAssertEqual(cacheSpecError(run(client)) as? AppError, .server(code: "limit"))
    }

    func testBodyValidator_usesTheEndpointsDecoder() throws {
        struct SnakeError: Decodable, Error, Equatable {
            let errorCode: String
        }
        transport.stub(path: "/v1/expenses/1", .json(#"{"error_code":"E42"}"#, status: 400))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let client = try makeClient([BodyValidator<SnakeError>()])

        let observer = run(client, CacheSpecEndpoint("/expenses/1", jsonDecoder: decoder))

        XCTAssertEqual(cacheSpecError(observer) as? SnakeError, SnakeError(errorCode: "E42"))
    }

    func testStatusThenBodyValidator_firstOneAddedDecides() throws {
        transport.stub(path: "/v1/expenses/1", .json(apiErrorJSON, status: 422))
        let statusFirst = try makeClient([StatusValidator(), BodyValidator<APIError>()])

        XCTAssertEqual((cacheSpecError(run(statusFirst)) as? LeashError)?.statusCode, 422)
    }
}
