import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Response header names in lower case, as HTTP/2 servers send them, found by their usual
/// spelling in every place Leash hands headers on.
final class ResponseHeadersLoopbackTests: LoopbackIntegrationCase {
    func testSuccess_lowerCaseNames_areFoundInAnyCase() throws {
        server.route(
            "GET", "/created",
            response: LoopbackResponse(status: 201, headers: ["location": "/items/7", "x-custom": "yes"]))
        let response = try outcome(try makeClient(), SpecEndpoint("/created"), DataResponseSerializer())
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.headers["Location"], "/items/7")
        XCTAssertEqual(response.headers["X-Custom"], "yes")
        XCTAssertEqual(response.details?.headers["X-CUSTOM"], "yes")
        let names = response.headers.map(\.name)
        XCTAssertTrue(names.contains("x-custom"), "the names as sent, not canonicalised: \(names)")
    }

    func testStatusFailure_lowerCaseNames_areFoundInAnyCase() throws {
        server.route(
            "GET", "/busy",
            response: LoopbackResponse(
                status: 503, headers: ["x-custom": "busy", "retry-after": "7"], body: Data("later".utf8)))
        let response = try outcome(try makeClient(), SpecEndpoint("/busy"), DataResponseSerializer())
        guard case .unacceptableStatusCode(let failure)? = response.error as? LeashError else {
            return XCTFail("expected a status failure, got \(String(describing: response.error))")
        }
        XCTAssertEqual(failure.statusCode, 503)
        XCTAssertEqual(failure.headers["X-Custom"], "busy")
        XCTAssertEqual(failure.headers["Retry-After"], "7")
    }

    func testRedirectNotFollowed_lowerCaseLocation_isFoundAsLocation() throws {
        server.route("GET", "/moved", response: LoopbackResponse(status: 302, headers: ["location": "/echo"]))
        let client = try makeClient { $0.redirects(.doNotFollow) }
        let response = try outcome(client, SpecEndpoint("/moved"), DataResponseSerializer())
        guard case .unacceptableStatusCode(let failure)? = response.error as? LeashError else {
            return XCTFail("expected the 302 as a status failure, got \(String(describing: response.error))")
        }
        XCTAssertEqual(failure.statusCode, 302)
        XCTAssertEqual(failure.headers["Location"], "/echo")
        XCTAssertEqual(server.requestCount, 1, "not followed")
    }
}
