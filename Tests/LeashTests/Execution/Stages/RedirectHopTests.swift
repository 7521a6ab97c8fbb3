import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the request after a redirect is made (RFC 9110 §15.4, and what browsers do).
final class RedirectHopTests: XCTestCase {
    private func request(_ method: String, _ url: String = "https://api.example.com/a/b", body: Bool = true)
        -> URLRequest
    {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if body {
            request.httpBody = Data("{}".utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("2", forHTTPHeaderField: "Content-Length")
        }
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        request.setValue("a=b", forHTTPHeaderField: "Cookie")
        request.setValue("x", forHTTPHeaderField: "X-Other")
        return request
    }

    private func next(_ status: Int, _ location: String?, after request: URLRequest) -> URLRequest? {
        let headers = location.map { ["Location": $0] } ?? [:]
        let response = HTTPURLResponse(
            url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        return RedirectHop.proposedRequest(after: response, to: request)
    }

    func testMethodAndBody_perStatus() {
        let table: [(status: Int, method: String, expected: String, keepsBody: Bool)] = [
            (301, "POST", "GET", false), (302, "POST", "GET", false), (303, "POST", "GET", false),
            (307, "POST", "POST", true), (308, "POST", "POST", true), (301, "PUT", "PUT", true),
            (302, "DELETE", "DELETE", true), (303, "PUT", "GET", false), (303, "HEAD", "HEAD", false),
        ]
        for row in table {
            let body = row.method != "HEAD"
            guard let next = next(row.status, "/c", after: request(row.method, body: body)) else {
                XCTFail("\(row) should be followed")
                continue
            }
            XCTAssertEqual(next.httpMethod, row.expected, "\(row)")
            XCTAssertEqual(next.httpBody != nil, row.keepsBody, "\(row)")
            XCTAssertEqual(next.value(forHTTPHeaderField: "Content-Type") != nil, row.keepsBody, "\(row)")
            XCTAssertEqual(next.value(forHTTPHeaderField: "X-Other"), "x", "\(row)")
        }
    }

    func testLocations_resolveAgainstTheRequest_andOnlyHTTPIsFollowed() {
        let base = request("GET", body: false)
        XCTAssertEqual(next(302, "/c?d=1", after: base)?.url?.absoluteString, "https://api.example.com/c?d=1")
        XCTAssertEqual(next(302, "c", after: base)?.url?.absoluteString, "https://api.example.com/a/c")
        XCTAssertEqual(next(302, "//cdn.example.com/x", after: base)?.url?.absoluteString, "https://cdn.example.com/x")
        XCTAssertNil(next(302, nil, after: base), "no Location")
        XCTAssertNil(next(302, "mailto:a@example.com", after: base))
        XCTAssertNil(next(302, "file:///etc/passwd", after: base))
        XCTAssertNil(next(304, "/c", after: base), "a 304 is not a redirect")
        XCTAssertNil(next(300, "/c", after: base))
    }

    func testCredentials_stayWithinTheOrigin() {
        let base = request("GET", body: false)
        let same = next(302, "https://API.example.com:443/z", after: base)
        XCTAssertEqual(
            same?.value(forHTTPHeaderField: "Authorization"), "Bearer t", "the default port is the same origin")
        XCTAssertEqual(same?.value(forHTTPHeaderField: "Cookie"), "a=b")
        for other in ["http://api.example.com/z", "https://api.example.com:8443/z", "https://evil.example.com/z"] {
            let next = next(307, other, after: base)
            XCTAssertNil(next?.value(forHTTPHeaderField: "Authorization"), other)
            XCTAssertNil(next?.value(forHTTPHeaderField: "Cookie"), other)
            XCTAssertEqual(next?.value(forHTTPHeaderField: "X-Other"), "x", other)
        }
    }

    func testPolicies_decide() {
        let base = request("GET", body: false)
        let response = HTTPURLResponse(
            url: base.url!, statusCode: 302, httpVersion: nil, headerFields: ["Location": "/c"])!
        let redirect = Redirect(
            request: base, response: response, proposedRequest: next(302, "/c", after: base)!, hop: 1)
        XCTAssertEqual(RedirectPolicy.follow.nextRequest(after: redirect)?.url?.path, "/c")
        XCTAssertEqual(RedirectPolicy.follow.limit, 20)
        XCTAssertNil(RedirectPolicy.doNotFollow.nextRequest(after: redirect))
        XCTAssertEqual(RedirectPolicy.follow(limit: -3).limit, 0)
        let rewriting = RedirectPolicy.custom(limit: 2) { _ in
            URLRequest(url: URL(string: "https://other.example.com/")!)
        }
        XCTAssertEqual(rewriting.nextRequest(after: redirect)?.url?.host, "other.example.com")
        XCTAssertEqual(rewriting.limit, 2)
    }

    func testOnlyTheRedirectingStatuses_redirect() {
        XCTAssertEqual([301, 302, 303, 307, 308].filter(RedirectHop.redirects(status:)).count, 5)
        XCTAssertEqual([200, 300, 304, 305, 306, 309, 399].filter(RedirectHop.redirects(status:)), [])
    }

    func testSameOrigin_comparesSchemeHostAndPort_theDefaultPortCountedAsGiven() {
        func same(_ a: String, _ b: String) -> Bool { RedirectHop.sameOrigin(URL(string: a)!, URL(string: b)!) }
        XCTAssertTrue(same("https://API.example.com/a", "HTTPS://api.example.com:443/b"))
        XCTAssertTrue(same("http://example.com/a", "http://example.com:80/b"))
        XCTAssertFalse(same("http://example.com/a", "https://example.com/a"), "another scheme")
        XCTAssertFalse(same("https://example.com/a", "https://example.com:8443/a"), "another port")
        XCTAssertFalse(same("https://example.com/a", "https://www.example.com/a"), "another host")
    }
}
