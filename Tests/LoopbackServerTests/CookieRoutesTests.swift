import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The httpbin-like cookie routes: their `Set-Cookie` fields exactly, and the cookies
/// `/cookies` reports.
final class CookieRoutesTests: LoopbackTestCase {
    private func answer(_ target: String) throws -> LoopbackResponse {
        let path = String(target.prefix { $0 != "?" })
        let route = try XCTUnwrap(LoopbackServer.builtInRoutes.first { $0.path == path }, path)
        return route.handler(LoopbackRequest(method: "GET", target: target))
    }

    func testSet_setsACookiePerQueryItem_andRedirectsToCookies() throws {
        let response = try answer("/cookies/set?n=1&m=two")
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.headers["Location"], "/cookies")
        XCTAssertEqual(response.headers.values(for: "Set-Cookie"), ["n=1; Path=/", "m=two; Path=/"])
    }

    func testSet_addsTheMaxAgeAndExpiresOptionsToEveryCookie() throws {
        let response = try answer("/cookies/set?n=1&max-age=0&expires-in=-60")
        let fields = response.headers.values(for: "Set-Cookie")
        XCTAssertEqual(fields.count, 1)
        let field = try XCTUnwrap(fields.first)
        XCTAssertTrue(field.hasPrefix("n=1; Path=/; Max-Age=0; Expires="), field)
        let expires = String(field.dropFirst("n=1; Path=/; Max-Age=0; Expires=".count))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = try XCTUnwrap(formatter.date(from: expires), expires)
        XCTAssertEqual(date.timeIntervalSinceNow, -60, accuracy: 5)
    }

    func testSet_refusesAMalformedExpiresIn() throws {
        XCTAssertEqual(try answer("/cookies/set?n=1&expires-in=soon").status, 400)
    }

    func testDelete_answersHttpbinsHeader() throws {
        let response = try answer("/cookies/delete?n")
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.headers["Location"], "/cookies")
        XCTAssertEqual(
            response.headers.values(for: "Set-Cookie"), ["n=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"]
        )
    }

    func testCookies_reportsTheCookiesTheRequestSent() throws {
        let server = try makeServer()
        var request = URLRequest(url: server.url(path: "/cookies"))
        request.setValue("a=1; b=; c=x=y", forHTTPHeaderField: "Cookie")
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(
            try decode(LoopbackServer.ReceivedCookies.self, from: result.data),
            LoopbackServer.ReceivedCookies(cookies: ["a": "1", "b": "", "c": "x=y"]))
    }
}
