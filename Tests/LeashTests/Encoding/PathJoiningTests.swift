import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class PathJoiningTests: XCTestCase {
    func testJoin_baseWithoutTrailingSlash_endpointWithLeadingSlash_oneSlash() throws {
        XCTAssertEqual(try url("http://example.com/api", "/users"), "http://example.com/api/users")
    }

    func testJoin_baseWithTrailingSlash_endpointWithoutLeadingSlash_oneSlash() throws {
        XCTAssertEqual(try url("http://example.com/api/", "users"), "http://example.com/api/users")
    }

    func testJoin_bothSlashes_oneSlash() throws {
        XCTAssertEqual(try url("http://example.com/api/", "/users"), "http://example.com/api/users")
    }

    func testJoin_neitherSlash_oneSlash() throws {
        XCTAssertEqual(try url("http://example.com/api", "users"), "http://example.com/api/users")
    }

    func testJoin_endpointTrailingSlash_isKept() throws {
        XCTAssertEqual(try url("http://example.com/api", "/users/"), "http://example.com/api/users/")
    }

    func testJoin_baseWithoutPath() throws {
        XCTAssertEqual(try url("http://example.com", "users/1"), "http://example.com/users/1")
        XCTAssertEqual(try url("http://example.com/", "/users/1"), "http://example.com/users/1")
    }

    func testJoin_emptyEndpointPath_keepsBasePath() throws {
        XCTAssertEqual(try url("http://example.com/api", ""), "http://example.com/api")
        XCTAssertEqual(try url("http://example.com/api/", ""), "http://example.com/api/")
        XCTAssertEqual(try url("http://example.com", ""), "http://example.com")
    }

    func testJoin_slashOnlyEndpointPath_endsBaseWithSlash() throws {
        XCTAssertEqual(try url("http://example.com/api", "/"), "http://example.com/api/")
    }

    func testJoin_baseWithPortAndNestedPath() throws {
        XCTAssertEqual(try url("http://127.0.0.1:8080/api/v1/", "/users"), "http://127.0.0.1:8080/api/v1/users")
    }

    func testJoin_endpointQuery_becomesTheQuery() throws {
        let request = try specRequest(SpecEndpoint("/search?q=swift&page=2"))
        XCTAssertEqual(request.url?.path, "/api/search")
        XCTAssertEqual(request.specEncodedQuery, "q=swift&page=2")
    }

    func testJoin_endpointQuery_goesAfterTheBaseQuery() throws {
        let request = try specRequest(SpecEndpoint("/users?active=1"), base: "http://example.com/api?key=abc")
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/api/users?key=abc&active=1")
    }

    func testJoin_endpointQueryWithSpacesAndUnicode_isEncodedInsteadOfTrapping() throws {
        // URLComponents' percentEncodedQuery setter traps on a raw space.
        let request = try specRequest(SpecEndpoint("/search?q=a b&city=Zürich#top"))
        XCTAssertEqual(request.specEncodedQuery, "q=a%20b&city=Z%C3%BCrich%23top")
        XCTAssertEqual(
            URLComponents(url: try XCTUnwrap(request.url), resolvingAgainstBaseURL: false)?.queryItems,
            [URLQueryItem(name: "q", value: "a b"), URLQueryItem(name: "city", value: "Zürich#top")])
    }

    func testJoin_endpointQueryWithInvalidEscape_encodesThePercent() throws {
        XCTAssertEqual(try specRequest(SpecEndpoint("/x?discount=100%")).specEncodedQuery, "discount=100%25")
        XCTAssertEqual(try specRequest(SpecEndpoint("/x?d=%zz")).specEncodedQuery, "d=%25zz")
    }

    func testJoin_spacesInPath_arePercentEncoded() throws {
        XCTAssertEqual(try url("http://example.com/api", "/users/John Doe"), "http://example.com/api/users/John%20Doe")
    }

    func testJoin_unicodeInPath_isPercentEncodedAsUTF8() throws {
        XCTAssertEqual(
            try url("http://example.com", "/café/😀"), "http://example.com/caf%C3%A9/%F0%9F%98%80")
    }

    func testJoin_hashInPath_isEncodedNotAFragment() throws {
        let request = try specRequest(SpecEndpoint("/tags/#swift"))
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/api/tags/%23swift")
        XCTAssertNil(request.url?.fragment)
    }

    func testJoin_validEscapesInPath_areKept_invalidOnesEncoded() throws {
        XCTAssertEqual(try url("http://example.com", "/files/a%2Fb"), "http://example.com/files/a%2Fb")
        XCTAssertEqual(try url("http://example.com", "/sale/50%off"), "http://example.com/sale/50%25off")
        XCTAssertEqual(try url("http://example.com", "/100%"), "http://example.com/100%25")
    }

    func testJoin_basePathWithEscapes_isKeptAsIs() throws {
        XCTAssertEqual(try url("http://example.com/my%20api", "/x"), "http://example.com/my%20api/x")
    }

    func testJoin_endpointQueryAndParameters_parametersGoLast() throws {
        let endpoint = SpecEndpoint("/search?q=a", parameters: ["page": 2, "limit": 10])
        XCTAssertEqual(try specRequest(endpoint).specEncodedQuery, "q=a&limit=10&page=2")
    }

    func testJoin_baseQueryThenEndpointQueryThenParameters_aNameInSeveralIsSentEachTime() throws {
        let endpoint = SpecEndpoint("/users?page=1&active=1", parameters: ["page": 2])
        let request = try specRequest(endpoint, base: "http://example.com/api?page=0")
        XCTAssertEqual(request.specEncodedQuery, "page=0&page=1&active=1&page=2", "not merged, not sorted")
    }

    func testJoin_endpointQuery_keepsItsSeparators_soAValueCarryingThemIsEscapedByHand() throws {
        let escaped = try specRequest(SpecEndpoint("/redirect-to?url=https://example.com/a%3Fb%3D1%26c%3D2"))
        XCTAssertEqual(escaped.specEncodedQuery, "url=https://example.com/a%3Fb%3D1%26c%3D2")
        XCTAssertEqual(
            URLComponents(url: try XCTUnwrap(escaped.url), resolvingAgainstBaseURL: false)?.queryItems,
            [URLQueryItem(name: "url", value: "https://example.com/a?b=1&c=2")])

        let asWritten = try specRequest(SpecEndpoint("/redirect-to?url=https://example.com/a?b=1&c=2"))
        XCTAssertEqual(
            URLComponents(url: try XCTUnwrap(asWritten.url), resolvingAgainstBaseURL: false)?.queryItems,
            [URLQueryItem(name: "url", value: "https://example.com/a?b=1"), URLQueryItem(name: "c", value: "2")],
            "the `&` separates a parameter of its own")
    }

    private func url(_ base: String, _ path: String) throws -> String? {
        try specRequest(SpecEndpoint(path), base: base).url?.absoluteString
    }
}
