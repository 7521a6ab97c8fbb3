import Foundation
import Leash
import LeashTesting
import XCTest

final class ManagerBuilderTests: XCTestCase {
    // MARK: Valid base URLs

    func testBuild_urlString_isTheBaseURL() throws {
        let manager = try Manager.Builder().url("https://api.example.com/v1").build()
        XCTAssertEqual(manager.baseURL.absoluteString, "https://api.example.com/v1")
    }

    func testBuild_urlValue_isTheBaseURL() throws {
        let url = try XCTUnwrap(URL(string: "http://localhost:8080/api"))
        let manager = try Manager.Builder().url(url).build()
        XCTAssertEqual(manager.baseURL, url)
    }

    func testBuild_parts_formTheBaseURL() throws {
        let manager = try Manager.Builder().scheme("http").host("localhost").port(8080).path("api").build()
        XCTAssertEqual(manager.baseURL.absoluteString, "http://localhost:8080/api")
    }

    func testBuild_partsWithoutPortOrPath_formTheBaseURL() throws {
        let manager = try Manager.Builder().scheme("https").host("example.com").build()
        XCTAssertEqual(manager.baseURL.absoluteString, "https://example.com")
    }

    func testBuild_pathWithLeadingSlash_isKept() throws {
        let manager = try Manager.Builder().scheme("http").host("h").path("/api/v2").build()
        XCTAssertEqual(manager.baseURL.path, "/api/v2")
    }

    func testBuild_partsAfterURL_refineIt() throws {
        let manager = try Manager.Builder()
            .url("http://example.com/v1?key=1")
            .scheme("https")
            .host("api.example.com")
            .port(8443)
            .path("v2")
            .build()
        XCTAssertEqual(manager.baseURL.absoluteString, "https://api.example.com:8443/v2?key=1")
    }

    func testBuild_portOnlyAfterURL_keepsTheRest() throws {
        let manager = try Manager.Builder().url("http://127.0.0.1/api").port(9000).build()
        XCTAssertEqual(manager.baseURL.absoluteString, "http://127.0.0.1:9000/api")
    }

    func testBuild_schemeIsCaseInsensitive() throws {
        XCTAssertNoThrow(try Manager.Builder().url("HTTPS://example.com").build())
    }

    func testBuild_partsMayGiveTheSchemeAURLLacks() throws {
        // "example.com" alone parses as a path; the scheme and host come from the parts.
        let manager = try Manager.Builder().url("//example.com/api").scheme("https").build()
        XCTAssertEqual(manager.baseURL.absoluteString, "https://example.com/api")
    }

    // MARK: Invalid base URLs

    func testBuild_urlWithoutScheme_throwsInvalidURLSayingNoScheme() {
        assertInvalidURL(Manager.Builder().url("example.com/api"), url: "example.com/api", reason: "no scheme")
    }

    func testBuild_hostAndPortWithoutScheme_throwsInvalidURLSayingNoScheme() {
        // URLComponents reads "localhost" as the scheme here; the message must not say so.
        assertInvalidURL(Manager.Builder().url("localhost:8080"), url: "localhost:8080", reason: "no scheme")
    }

    func testBuild_urlWithoutHost_throwsInvalidURLSayingNoHost() {
        assertInvalidURL(Manager.Builder().url("http:///api"), url: "http:///api", reason: "no host")
        assertInvalidURL(Manager.Builder().url("https://"), url: "https://", reason: "no host")
    }

    func testBuild_nonHTTPScheme_throwsInvalidURLNamingTheScheme() {
        assertInvalidURL(
            Manager.Builder().url("ftp://example.com/files"), url: "ftp://example.com/files",
            reason: "the scheme \"ftp\" is not http or https")
        assertInvalidURL(
            Manager.Builder().scheme("ws").host("example.com"), url: "scheme: ws",
            reason: "the scheme \"ws\" is not http or https")
    }

    func testBuild_unparsableURL_throwsInvalidURLSayingItCannotBeParsed() {
        assertInvalidURL(
            Manager.Builder().url("http://exa mple.com"), url: "http://exa mple.com", reason: "cannot be parsed")
        assertInvalidURL(Manager.Builder().url("http://[::1"), url: "http://[::1", reason: "cannot be parsed")
    }

    func testBuild_emptyURL_throwsInvalidURLSayingItIsEmpty() {
        assertInvalidURL(Manager.Builder().url(""), url: "", reason: "it is empty")
        assertInvalidURL(Manager.Builder().url("  "), url: "  ", reason: "it is empty")
    }

    func testBuild_nothingSet_throwsInvalidURLSayingNoBaseURL() {
        assertInvalidURL(Manager.Builder(), url: "nothing set", reason: "no base URL was set")
    }

    func testBuild_hostWithoutScheme_throwsInvalidURLSayingNoScheme() {
        assertInvalidURL(Manager.Builder().host("example.com"), url: "host: example.com", reason: "no scheme")
    }

    func testBuild_schemeWithoutHost_throwsInvalidURLSayingNoHost() {
        assertInvalidURL(Manager.Builder().scheme("https").path("api"), url: "scheme: https", reason: "no host")
    }

    func testBuild_emptyHost_throwsInvalidURLSayingNoHost() {
        assertInvalidURL(Manager.Builder().scheme("https").host(""), url: "scheme: https", reason: "no host")
    }

    func testBuild_negativePort_throwsInvalidURLInsteadOfTrapping() {
        // URLComponents' port setter traps on a negative port; the builder must throw.
        assertInvalidURL(
            Manager.Builder().scheme("http").host("localhost").port(-1), url: "port: -1",
            reason: "the port -1 is not in 1...65535")
    }

    func testBuild_portAboveRange_throwsInvalidURL() {
        assertInvalidURL(
            Manager.Builder().url("http://example.com:99999"), url: "http://example.com:99999",
            reason: "the port 99999 is not in 1...65535")
        assertInvalidURL(
            Manager.Builder().url("http://example.com").port(65_536), url: "http://example.com",
            reason: "the port 65536 is not in 1...65535")
    }

    func testBuild_hostWithSpaces_throwsInvalidURL() {
        assertInvalidURL(
            Manager.Builder().scheme("http").host("exa mple.com"), url: "host: exa mple.com",
            reason: "do not form a URL")
    }

    func testInvalidURL_description_quotesURLAndReason() {
        let error = LeashError.invalidURL(url: "localhost:8080", reason: "it has no scheme (such as http://)")
        XCTAssertEqual(error.description, "Invalid URL \"localhost:8080\": it has no scheme (such as http://).")
    }

    // MARK: Other settings

    func testBuild_defaults() throws {
        let manager = try Manager.Builder().url("http://h").build()
        XCTAssertNil(manager.authenticator)
        XCTAssertTrue(manager.interceptors.isEmpty)
        XCTAssertEqual(manager.defaultHeaders, [:])
        XCTAssertNil(manager.timeout)
        XCTAssertEqual(manager.acceptableStatusCodes, Set(200..<300))
        #if os(Linux) && !LEASH_APPLE_BRANCHES
            // Leash's own HTTP/1.1 transport on Linux, URLSession elsewhere.
            XCTAssertTrue((manager.transport as? HTTP1Transport) === HTTP1Transport.shared)
        #else
            XCTAssertTrue((manager.transport as? URLSessionTransport) === URLSessionTransport.shared)
        #endif
        XCTAssertNil(manager.callbackQueue, "no main-queue default: command-line programs do not run it")
        XCTAssertEqual(manager.maximumRetryCount, 3)
    }

    func testBuild_settingsAreKept() throws {
        let transport = StubTransport()
        let queue = DispatchQueue(label: "callbacks")
        let manager = try Manager.Builder()
            .url("http://h")
            .header("X-One", "1")
            .headers(["X-Two": "2", "X-One": "one"])
            .timeout(2.5)
            .acceptableStatusCodes([200, 404])
            .transport(transport)
            .callbackQueue(queue)
            .maximumRetryCount(5)
            .build()
        XCTAssertEqual(manager.defaultHeaders, ["X-One": "one", "X-Two": "2"])
        XCTAssertEqual(manager.timeout, 2.5)
        XCTAssertEqual(manager.acceptableStatusCodes, [200, 404])
        XCTAssertTrue((manager.transport as? StubTransport) === transport)
        XCTAssertTrue(manager.callbackQueue === queue)
        XCTAssertEqual(manager.maximumRetryCount, 5)
    }

    func testBuild_negativeRetryCount_isZero() throws {
        XCTAssertEqual(try Manager.Builder().url("http://h").maximumRetryCount(-2).build().maximumRetryCount, 0)
    }

    func testTimeout_notPositiveOrNotFinite_meansNoLimit() throws {
        for value in [0, -1, TimeInterval.infinity, -TimeInterval.infinity, TimeInterval.nan] {
            XCTAssertNil(try Manager.Builder().url("http://h").timeout(value).build().timeout, "\(value)")
        }
    }

    func testTimeout_huge_isClampedToAYear() throws {
        let manager = try Manager.Builder().url("http://h").timeout(1e300).build()
        XCTAssertEqual(manager.timeout, 365 * 24 * 3600)
    }

    func testJSONEncoderAndDecoder_configureClosuresApply() throws {
        let manager = try Manager.Builder()
            .url("http://h")
            .jsonEncoder { $0.keyEncodingStrategy = .convertToSnakeCase }
            .jsonDecoder { $0.keyDecodingStrategy = .convertFromSnakeCase }
            .build()
        struct Value: Codable, Equatable { var firstName: String }
        let data = try manager.jsonEncoder.encode(Value(firstName: "Ada"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"first_name":"Ada"}"#)
        XCTAssertEqual(try manager.jsonDecoder.decode(Value.self, from: data), Value(firstName: "Ada"))
    }

    func testJSONDateFormatter_appliesToEncoderAndDecoder() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let manager = try Manager.Builder().url("http://h").jsonDateFormatter(formatter).build()
        let date = Date(timeIntervalSince1970: 86_400)
        let data = try manager.jsonEncoder.encode([date])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["1970-01-02"]"#)
        XCTAssertEqual(try manager.jsonDecoder.decode([Date].self, from: data), [date])
    }

    func testReplacingEncoderAndDecoder_usesTheGivenInstances() throws {
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        let manager = try Manager.Builder().url("http://h").jsonEncoder(encoder).jsonDecoder(decoder).build()
        XCTAssertTrue(manager.jsonEncoder === encoder)
        XCTAssertTrue(manager.jsonDecoder === decoder)
    }

    // MARK: Helpers

    private func assertInvalidURL(
        _ builder: Manager.Builder, url expectedURL: String, reason expectedReason: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try builder.build(), file: file, line: line) { error in
            guard case .invalidURL(let url, let reason) = error as? LeashError else {
                return XCTFail("expected LeashError.invalidURL, got \(error)", file: file, line: line)
            }
            XCTAssertTrue(
                expectedURL.isEmpty ? url.isEmpty : url.contains(expectedURL), "url \"\(url)\"", file: file, line: line)
            XCTAssertTrue(reason.contains(expectedReason), "reason \"\(reason)\"", file: file, line: line)
        }
    }
}
