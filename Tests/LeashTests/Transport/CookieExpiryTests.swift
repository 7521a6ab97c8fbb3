import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CookieExpiry` against a cookie storage filled as FoundationNetworking fills it (each
/// `Set-Cookie` field parsed by `HTTPCookie` and set for the response's URL), without a
/// network. Where URLSession expires cookies itself (Apple platforms), the transport never
/// uses it, and these tests are skipped.
final class CookieExpiryTests: XCTestCase {
    private let url = URL(string: "http://api.example.test/session/login")!
    private var storage: HTTPCookieStorage!
    private var expiry: CookieExpiry!

    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipIf(URLSessionPlatform.current.expiresCookies, "URLSession expires cookies itself here")
        let configuration = URLSessionConfiguration.ephemeral
        storage = try XCTUnwrap(configuration.httpCookieStorage)
        expiry = try XCTUnwrap(CookieExpiry(configuration: configuration))
    }

    /// What FoundationNetworking does with each `Set-Cookie` line of a response as it
    /// arrives; returns the lines joined as `HTTPURLResponse.allHeaderFields` gives them.
    private func receive(_ lines: [String], from url: URL? = nil) -> String {
        let url = url ?? self.url
        for line in lines {
            storage.setCookies(
                HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url), for: url,
                mainDocumentURL: nil)
        }
        return lines.joined(separator: ", ")
    }

    private func stored(_ name: String) -> HTTPCookie? {
        storage.cookies?.first { $0.name == name }
    }

    func testInit_isNilWhereThereIsNothingToDo() {
        let linux = URLSessionPlatform(
            sharesOneWorkQueue: true, streamsUploadFiles: true, keepsURLCache: false, collectsMetrics: false,
            deliversRejectedChallenges: false, expiresCookies: false)
        let apple = URLSessionPlatform(
            sharesOneWorkQueue: false, streamsUploadFiles: false, keepsURLCache: true, collectsMetrics: true,
            deliversRejectedChallenges: true, expiresCookies: true)
        XCTAssertNotNil(CookieExpiry(configuration: .ephemeral, platform: linux))
        XCTAssertNil(CookieExpiry(configuration: .ephemeral, platform: apple))
        let noCookies = URLSessionConfiguration.ephemeral
        noCookies.httpShouldSetCookies = false
        XCTAssertNil(CookieExpiry(configuration: noCookies, platform: linux))
        let noStorage = URLSessionConfiguration.ephemeral
        noStorage.httpCookieStorage = nil
        XCTAssertNil(CookieExpiry(configuration: noStorage, platform: linux))
    }

    func testDeltaSeconds_readsRFC6265sSyntaxOnly() {
        XCTAssertEqual(CookieExpiry.deltaSeconds("0"), 0)
        XCTAssertEqual(CookieExpiry.deltaSeconds("3600"), 3600)
        XCTAssertEqual(CookieExpiry.deltaSeconds("-1"), -1)
        XCTAssertEqual(CookieExpiry.deltaSeconds("99999999999999999999999"), Int.max)
        XCTAssertEqual(CookieExpiry.deltaSeconds("-99999999999999999999999"), -Int.max)
        for malformed in ["", "-", "+5", "1.5", "abc", "1e3", " 5", "٣"] {
            XCTAssertNil(CookieExpiry.deltaSeconds(malformed), malformed)
        }
    }

    /// Several fields joined with ", ", `Expires` dates holding commas of their own.
    func testJoinedFields_eachMaxAgeApplied_andNothingElseTouched() throws {
        let joined = receive([
            "a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/",
            "b=2; Max-Age=1; Path=/",
            "c=3; Expires=Thu, 01 Jan 2099 00:00:00 GMT; Max-Age=100",
            "d=4",
            "e=5; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Max-Age=0; Path=/",
        ])
        XCTAssertNil(stored("b")?.expiresDate, "FoundationNetworking ignores Max-Age")
        expiry.applyMaxAge(ofSetCookie: joined, from: url)

        let a = try XCTUnwrap(stored("a")?.expiresDate)
        XCTAssertEqual(a, Date(timeIntervalSince1970: 4_096_250_880))
        XCTAssertEqual(try XCTUnwrap(stored("b")?.expiresDate).timeIntervalSinceNow, 1, accuracy: 0.5)
        XCTAssertEqual(
            try XCTUnwrap(stored("c")?.expiresDate).timeIntervalSinceNow, 100, accuracy: 0.5, "Max-Age wins")
        XCTAssertNil(stored("d")?.expiresDate)
        XCTAssertEqual(stored("d")?.value, "4")
        XCTAssertNil(stored("e"), "Max-Age=0 deletes it, a future Expires notwithstanding")
        XCTAssertEqual(Set(storage.cookies?.map(\.name) ?? []), ["a", "b", "c", "d"])
    }

    /// The replacement keeps every attribute but the expiry, and is matched by the domain
    /// and path FoundationNetworking gave it (here the host and the default `/`).
    func testReplacement_keepsTheCookiesAttributes() throws {
        let joined = receive(["s=1; Max-Age=60; Secure; HttpOnly", "p=2; Path=/session; Max-Age=60"])
        expiry.applyMaxAge(ofSetCookie: joined, from: url)
        let secure = try XCTUnwrap(stored("s"))
        XCTAssertEqual(secure.value, "1")
        XCTAssertEqual(secure.domain, "api.example.test")
        XCTAssertEqual(secure.path, "/")
        XCTAssertTrue(secure.isSecure)
        XCTAssertTrue(secure.isHTTPOnly)
        XCTAssertFalse(secure.isSessionOnly)
        XCTAssertEqual(try XCTUnwrap(secure.expiresDate).timeIntervalSinceNow, 60, accuracy: 1)
        XCTAssertNil(CookieExpiry.maxAge(of: secure), "no Max-Age left to apply twice")
        XCTAssertEqual(stored("p")?.path, "/session")
        XCTAssertNotNil(stored("p")?.expiresDate)
        XCTAssertEqual(storage.cookies?.count, 2)
    }

    /// Two fields for one cookie: the last decides, as it did in the storage.
    func testTheLastFieldOfACookie_decides() throws {
        expiry.applyMaxAge(ofSetCookie: receive(["n=1; Max-Age=0", "n=2"]), from: url)
        XCTAssertEqual(stored("n")?.value, "2")
        XCTAssertNil(stored("n")?.expiresDate)
        expiry.applyMaxAge(ofSetCookie: receive(["n=3", "n=; Max-Age=0"]), from: url)
        XCTAssertNil(stored("n"))
    }

    /// A `Max-Age` that is not RFC 6265's is ignored, as FoundationNetworking ignores it.
    func testAMalformedMaxAge_isIgnored() {
        expiry.applyMaxAge(ofSetCookie: receive(["n=1; Max-Age=soon"]), from: url)
        XCTAssertEqual(stored("n")?.value, "1")
        XCTAssertNil(stored("n")?.expiresDate)
    }

    /// A cookie the storage refused (another domain's) removes or changes nothing there.
    func testACookieTheStorageRefused_changesNothing() throws {
        let other = URL(string: "http://other.test/")!
        expiry.applyMaxAge(ofSetCookie: receive(["x=kept; Max-Age=60"], from: other), from: other)
        let kept = try XCTUnwrap(stored("x")?.expiresDate)
        let joined = receive(["x=; Domain=other.test; Max-Age=0"])
        XCTAssertEqual(stored("x")?.value, "kept", "refused by the storage: not for this host")
        expiry.applyMaxAge(ofSetCookie: joined, from: url)
        XCTAssertEqual(stored("x")?.expiresDate, kept)
    }

    /// The storage kept an older cookie of that name (it refused the new one): its value
    /// is not the new one's, and a positive `Max-Age` is not the older cookie's to take.
    func testAPositiveMaxAge_leavesAnOlderValueAlone() {
        _ = receive(["n=old"])
        expiry.applyMaxAge(ofSetCookie: "n=new; Max-Age=60", from: url)
        XCTAssertEqual(stored("n")?.value, "old")
        XCTAssertNil(stored("n")?.expiresDate)
    }

    func testAResponseWithoutSetCookie_changesNothing() throws {
        _ = receive(["n=1; Max-Age=60"])
        let response = try XCTUnwrap(
            HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["X-Max-Age": "0"]))
        expiry.applyMaxAge(of: response)
        expiry.applyMaxAge(of: nil)
        XCTAssertNil(stored("n")?.expiresDate)
        XCTAssertEqual(stored("n")?.value, "1")
    }

    /// Read from the response's head, whatever the field name's case.
    func testAResponsesSetCookie_isReadFromItsHead() throws {
        _ = receive(["n=1"])
        let deletion = receive(["n=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"])
        XCTAssertEqual(stored("n")?.value, "", "FoundationNetworking keeps it, emptied")
        let response = try XCTUnwrap(
            HTTPURLResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1", headerFields: ["set-cookie": deletion]))
        expiry.applyMaxAge(of: response)
        XCTAssertNil(stored("n"))
    }
}
