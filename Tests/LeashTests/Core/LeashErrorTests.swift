import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct Cause: Error, CustomStringConvertible {
    var description: String { "the cause" }
}

final class LeashErrorTests: XCTestCase {
    // MARK: StatusCodeFailure.kind

    func testKind_classifiesByRange() {
        let expectations: [(Int, StatusCodeFailure.Kind)] = [
            (100, .other), (199, .other), (200, .other), (204, .other), (299, .other),
            (300, .redirect), (304, .redirect), (399, .redirect),
            (400, .client), (401, .client), (404, .client), (499, .client),
            (500, .server), (503, .server), (599, .server),
            (600, .other), (99, .other), (-1, .other),
        ]
        for (status, kind) in expectations {
            XCTAssertEqual(failure(status).kind, kind, "\(status)")
        }
    }

    func testStatusFailure_descriptionHasCodeReasonKindAndBody() {
        let description = failure(503, body: #"{"error":"maintenance"}"#).description
        XCTAssertTrue(description.hasPrefix("Unacceptable status code 503 ("), description)
        XCTAssertTrue(description.contains("server error"), description)
        XCTAssertTrue(description.hasSuffix(#"Body begins: {"error":"maintenance"}"#), description)
    }

    func testStatusFailure_emptyBody_saysEmpty() {
        XCTAssertEqual(failure(404).bodyExcerpt, "(empty)")
    }

    func testStatusFailure_longBody_isShortenedInTheExcerptButKeptWhole() {
        let body = String(repeating: "x", count: 5000)
        let failure = failure(500, body: body)
        XCTAssertEqual(failure.body.count, 5000)
        XCTAssertEqual(failure.bodyExcerpt, String(repeating: "x", count: 200) + "…")
    }

    func testStatusFailure_longMultibyteBody_excerptIsTextNotBytes() {
        // 800 bytes (the part decoded for the excerpt) cut a 3-byte character short.
        let failure = failure(500, body: String(repeating: "€", count: 1000))
        XCTAssertEqual(failure.bodyExcerpt, String(repeating: "€", count: 200) + "…")
    }

    // MARK: LeashError

    func testStatusCodeAndUnauthorized() {
        XCTAssertEqual(LeashError.unacceptableStatusCode(failure(401)).statusCode, 401)
        XCTAssertTrue(LeashError.unacceptableStatusCode(failure(401)).isUnauthorized)
        XCTAssertFalse(LeashError.unacceptableStatusCode(failure(403)).isUnauthorized)
        XCTAssertNil(LeashError.cancelled.statusCode)
        XCTAssertFalse(LeashError.timeout(seconds: 1).isUnauthorized)
    }

    func testUnderlyingError_isKeptForEveryWrappingCase() {
        let cause = Cause()
        let wrapping: [LeashError] = [
            .encoding(reason: "r", underlying: cause),
            .serialization(reason: "r", underlying: cause),
            .decoding(type: "T", underlying: cause, bodyExcerpt: ""),
            .retryLimitExceeded(attempts: 4, lastError: cause),
            .authenticationFailed(underlying: cause),
        ]
        for error in wrapping {
            XCTAssertTrue(error.underlyingError is Cause, "\(error)")
        }
        XCTAssertEqual((LeashError.transport(URLError(.timedOut)).underlyingError as? URLError)?.code, .timedOut)
        XCTAssertNil(LeashError.cancelled.underlyingError)
        XCTAssertNil(LeashError.invalidURL(url: "u", reason: "r").underlyingError)
    }

    func testLeashError_onAnyError_isTheLeashErrorOrNil() {
        let unauthorized: any Error = LeashError.unacceptableStatusCode(failure(401))
        XCTAssertEqual(unauthorized.leashError?.statusCode, 401)
        XCTAssertEqual(unauthorized.leashError?.isUnauthorized, true)
        let transport: any Error = LeashError.transport(URLError(.timedOut))
        XCTAssertEqual((transport.leashError?.underlyingError as? URLError)?.code, .timedOut)
        let own: any Error = Cause()
        XCTAssertNil(own.leashError)
        // An app's error that merely wraps a LeashError is not one.
        let wrapped: any Error = NSError(domain: "app", code: 1, userInfo: [NSUnderlyingErrorKey: unauthorized])
        XCTAssertNil(wrapped.leashError)
    }

    func testDescriptions_sayWhatHappened() {
        let cases: [(LeashError, [String])] = [
            (
                .invalidURL(url: "ftp://x", reason: "the scheme \"ftp\" is not http or https"),
                ["Invalid URL \"ftp://x\"", "ftp"]
            ),
            (
                .encoding(reason: "Thing could not be encoded", underlying: Cause()),
                ["Thing could not be encoded", "the cause"]
            ),
            (.transport(URLError(.cannotConnectToHost)), ["failed in transport", "URLError -1004"]),
            (.cancelled, ["cancelled"]),
            (.timeout(seconds: 0.3), ["No response within 0.3 s"]),
            (.unacceptableStatusCode(failure(404, body: "nope")), ["404", "client error", "nope"]),
            (
                .decoding(type: "User", underlying: Cause(), bodyExcerpt: "{}"),
                ["Could not decode User", "the cause", "{}"]
            ),
            (.serialization(reason: "bad text", underlying: nil), ["Could not serialize", "bad text"]),
            (.retryLimitExceeded(attempts: 4, lastError: Cause()), ["Gave up after 4 attempts", "the cause"]),
            (.authenticationFailed(underlying: Cause()), ["refresh the credential", "the cause"]),
            (.invalidResponse(reason: "the response is not HTTP"), ["Invalid response", "not HTTP"]),
        ]
        for (error, fragments) in cases {
            for fragment in fragments {
                XCTAssertTrue(error.description.contains(fragment), "\"\(error.description)\" lacks \"\(fragment)\"")
            }
        }
    }

    func testDecodingDescription_namesTheCodingPath() {
        let context = DecodingError.Context(
            codingPath: [SpecKey("users"), SpecKey(index: 2), SpecKey("name")], debugDescription: "missing")
        let error = LeashError.decoding(
            type: "[User]", underlying: DecodingError.valueNotFound(String.self, context), bodyExcerpt: "[]")
        XCTAssertTrue(error.description.contains("missing String value at users.[2].name"), error.description)
    }

    private func failure(_ status: Int, body: String = "") -> StatusCodeFailure {
        StatusCodeFailure(statusCode: status, headers: ["X": "1"], body: Data(body.utf8), response: nil)
    }
}

/// A coding key for building decoding contexts.
private struct SpecKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) {
        stringValue = string
        intValue = nil
    }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}
