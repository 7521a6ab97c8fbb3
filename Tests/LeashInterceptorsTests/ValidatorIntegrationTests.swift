import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct APIError: Decodable, Error, Equatable {
    let code: String
    let message: String
}

/// The validators against a real server on 127.0.0.1.
final class ValidatorIntegrationTests: LoopbackIntegrationCase {
    func testBodyValidator_serverErrorBody_reachesTheCallerAsTheAppsType() throws {
        server.route(
            "POST", "/expenses",
            response: LoopbackResponse.json(Data(#"{"code":"limit","message":"Over the limit"}"#.utf8), status: 422))
        let client = try makeClient { $0.add(interceptor: BodyValidator<APIError>()) }
        let failed = expectation(description: "failure")

        client.execute(CacheSpecEndpoint("/expenses", method: .post)) { (response: Response<CacheSpecExpense>) in
            switch response.result {
            case .failure(let error):
                XCTAssertEqual(error as? APIError, APIError(code: "limit", message: "Over the limit"))
            case .success(let value):
                XCTFail("expected the API's error, got \(value)")
            }
            failed.fulfill()
        }
        wait(for: [failed], timeout: 10)
    }

    func testStatusValidator_builtInStatusRoute_failsWithTheTypedStatusError() throws {
        let client = try makeClient {
            $0.acceptableStatusCodes(100..<600).add(interceptor: StatusValidator(acceptableStatusCodes: 200..<300))
        }

        let run = cacheSpecRun(client, CacheSpecEndpoint("/status/503"), as: CacheSpecExpense.self)

        guard case .unacceptableStatusCode(let failure)? = run.error as? LeashError else {
            return XCTFail("expected unacceptableStatusCode, got \(String(describing: run.error))")
        }
        XCTAssertEqual(failure.statusCode, 503)
        XCTAssertEqual(failure.kind, .server)
        XCTAssertEqual(failure.request?.url, server.url(path: "/status/503"))
        XCTAssertFalse(failure.body.isEmpty, "the server's error body is kept")
    }

    func testValidators_passGoodResponsesThrough() throws {
        let client = try makeClient {
            $0.add(interceptor: StatusValidator()).add(interceptor: BodyValidator<APIError>())
        }

        let run = cacheSpecRun(client, CacheSpecEndpoint("/json"), as: LoopbackSample.self)

        XCTAssertNil(run.error)
        XCTAssertEqual(run.responses.first?.value?.name, "Leash")
    }
}
