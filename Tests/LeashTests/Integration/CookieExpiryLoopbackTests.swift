import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A cookie the server expires or deletes is not sent again, on every platform: on Linux
/// the transport applies `Max-Age` and drops expired cookies itself (FoundationNetworking
/// does neither). Each test has a transport of its own with an ephemeral configuration,
/// so that no two share cookies.
final class CookieExpiryLoopbackTests: LoopbackIntegrationCase {
    private var transport: URLSessionTransport!
    private var client: Client!
    private var folder: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let transport = URLSessionTransport(configuration: .ephemeral)
        self.transport = transport
        client = try makeClient { $0.transport(transport) }
        folder = try TransferTestFolder(removedAfter: self).url
    }

    override func tearDown() {
        client = nil
        transport = nil
        super.tearDown()
    }

    /// Runs `endpoint` with a callback (so through the transport's data task, not a
    /// transfer) and returns its response.
    private func response<Serializer: ResponseSerializer>(_ endpoint: Endpoint, _ serializer: Serializer) throws
        -> Response<Serializer.SerializedObject>
    {
        let received = SpecLocked<Response<Serializer.SerializedObject>?>(nil)
        let done = expectation(description: endpoint.path)
        client.execute(endpoint, serializer: serializer) { response in
            received.withLock { $0 = response }
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        return try XCTUnwrap(received.value)
    }

    /// The cookies the server received with a GET of `path` (with the query `parameters`),
    /// or with the request of the redirect Leash followed from there.
    private func cookiesSent(to path: String = "/cookies", _ parameters: [String: String] = [:]) throws
        -> [String: String]
    {
        let endpoint = SpecEndpoint(path, parameters: parameters.isEmpty ? nil : parameters)
        return try response(endpoint, DecodableResponseSerializer<LoopbackServer.ReceivedCookies>()).justValue().cookies
    }

    /// The same, through a download (a transfer: another URLSession and its delegate).
    private func cookiesSentByDownload(to path: String = "/cookies", _ parameters: [String: String] = [:]) throws
        -> [String: String]
    {
        let destination = folder.appendingPathComponent("\(UUID().uuidString).json")
        let endpoint = SpecEndpoint(path, parameters: parameters.isEmpty ? nil : parameters)
        let events = try client.downloadEventStream(endpoint, to: destination).toBlocking(timeout: 10).toArray()
        XCTAssertEqual(events.compactMap(\.value), [destination])
        let data = try Data(contentsOf: destination)
        return try JSONDecoder().decode(LoopbackServer.ReceivedCookies.self, from: data).cookies
    }

    /// The transport's stored cookie named `name`.
    private func storedCookie(_ name: String) -> HTTPCookie? {
        transport.configuration.httpCookieStorage?.cookies?.first { $0.name == name }
    }

    // MARK: Deleted by the server

    /// httpbin's `/cookies/delete`: `n=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/`.
    func testHttpbinsDeletion_removesTheCookie() throws {
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["n": "1", "m": "2"]), ["n": "1", "m": "2"])
        XCTAssertEqual(try cookiesSent(to: "/cookies/delete", ["n": ""]), ["m": "2"], "the redirect's hop")
        XCTAssertEqual(try cookiesSent(), ["m": "2"])
        XCTAssertNil(storedCookie("n"))
    }

    func testMaxAgeZeroAlone_removesTheCookie() throws {
        server.route(
            "GET", "/forget", response: LoopbackResponse(status: 204, headers: ["Set-Cookie": "n=; Max-Age=0"]))
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["n": "1"]), ["n": "1"])
        _ = try response(SpecEndpoint("/forget"), DataResponseSerializer()).justValue()
        XCTAssertEqual(try cookiesSent(), [:])
        XCTAssertNil(storedCookie("n"))
    }

    /// Max-Age wins over Expires (RFC 6265 §5.3): a future `Expires` does not keep it.
    func testMaxAgeZero_winsOverAFutureExpires() throws {
        server.route(
            "GET", "/forget",
            response: LoopbackResponse(
                status: 204, headers: ["Set-Cookie": "n=; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Max-Age=0; Path=/"]))
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["n": "1"]), ["n": "1"])
        _ = try response(SpecEndpoint("/forget"), DataResponseSerializer()).justValue()
        XCTAssertEqual(try cookiesSent(), [:])
    }

    /// Already right on Linux before the transport's own expiry (FoundationNetworking's
    /// storage drops an expired cookie when it is set): kept as a guard.
    func testAPastExpiresAlone_removesTheCookie() throws {
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["n": "1"]), ["n": "1"])
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["n": "", "expires-in": "-3600"]), [:])
        XCTAssertEqual(try cookiesSent(), [:])
    }

    // MARK: Expired while the app runs

    func testAShortMaxAge_expiresWhileTheAppRuns_neitherADownloadNorARequestSendsIt() throws {
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["short": "1", "max-age": "1"]), ["short": "1"])
        let expiry = try XCTUnwrap(storedCookie("short")?.expiresDate, "Max-Age gives the cookie an expiry")
        XCTAssertEqual(expiry.timeIntervalSinceNow, 1, accuracy: 0.5)
        // A real wait, the one place a test may sleep: a cookie's expiry is the wall
        // clock's, which virtual time cannot move.
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertEqual(try cookiesSentByDownload(), [:], "a transfer's request")
        XCTAssertEqual(try cookiesSent(), [:])
        XCTAssertNil(storedCookie("short"))
    }

    func testAnExpiresThatPassesWhileTheAppRuns_stopsTheCookie() throws {
        // `Expires` is to the second: one second from now is between 0 and 1 s from now,
        // so the hop right after may or may not send it, and is not asserted.
        _ = try cookiesSent(to: "/cookies/set", ["soon": "1", "expires-in": "1"])
        XCTAssertNotNil(storedCookie("soon")?.expiresDate)
        // A real wait, the one place a test may sleep: a cookie's expiry is the wall
        // clock's, which virtual time cannot move.
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(try cookiesSent(), [:])
        XCTAssertNil(storedCookie("soon"))
    }

    // MARK: Kept

    /// The fix removes nothing more: cookies with a future expiry, a positive `Max-Age`
    /// or none at all are sent again and again, also by a download, and deleting one
    /// leaves the others.
    func testUnexpiredCookies_areStillSent() throws {
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["a": "1", "max-age": "60"]), ["a": "1"])
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["b": "2", "expires-in": "3600"]), ["a": "1", "b": "2"])
        let all = ["a": "1", "b": "2", "c": "3"]
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["c": "3"]), all)
        XCTAssertEqual(try cookiesSent(), all)
        XCTAssertEqual(try cookiesSentByDownload(), all)
        XCTAssertEqual(try cookiesSent(), all)
        XCTAssertEqual(try XCTUnwrap(storedCookie("a")?.expiresDate).timeIntervalSinceNow, 60, accuracy: 5)
        XCTAssertEqual(try cookiesSent(to: "/cookies/delete", ["b": ""]), ["a": "1", "c": "3"])
    }

    // MARK: Transfers

    /// The `Max-Age=0` of a download's 200: applied when its head arrives.
    func testADownloadsResponse_appliesItsMaxAge() throws {
        server.route(
            "GET", "/forget",
            response: LoopbackResponse(headers: ["Set-Cookie": "n=; Max-Age=0"], body: Data("{}".utf8)))
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["n": "1", "m": "2"]), ["n": "1", "m": "2"])
        let destination = folder.appendingPathComponent("forget.json")
        let events = try client.downloadEventStream(SpecEndpoint("/forget"), to: destination).toBlocking(timeout: 10)
            .toArray()
        XCTAssertEqual(events.compactMap(\.value), [destination])
        XCTAssertEqual(try cookiesSent(), ["m": "2"])
    }

    /// httpbin's deletion on a download's redirect: the hop Leash follows no longer sends
    /// the cookie.
    func testADownloadsRedirect_appliesItsMaxAge() throws {
        XCTAssertEqual(try cookiesSent(to: "/cookies/set", ["n": "1", "m": "2"]), ["n": "1", "m": "2"])
        XCTAssertEqual(try cookiesSentByDownload(to: "/cookies/delete", ["n": ""]), ["m": "2"])
        XCTAssertEqual(try cookiesSent(), ["m": "2"])
    }
}
