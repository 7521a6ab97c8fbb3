import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport keeps URLSession's default configuration: a cookie the server
/// sets is sent back with the next requests, as URLSession does.
final class CookieLoopbackTests: LoopbackIntegrationCase {
    /// A name no other run shares (the shared cookie storage may outlive the process).
    private let cookieName = "leash-test-\(UUID().uuidString.prefix(8))"

    override func tearDown() {
        let storage = HTTPCookieStorage.shared
        for cookie in storage.cookies ?? [] where cookie.name == cookieName { storage.deleteCookie(cookie) }
        super.tearDown()
    }

    private func setting(_ value: String, status: Int = 204, headers: LoopbackHeaders = [:]) -> LoopbackResponse {
        var headers = headers
        headers["Set-Cookie"] = "\(cookieName)=\(value); Path=/; Max-Age=60"
        return LoopbackResponse(status: status, headers: headers)
    }

    func testACookieTheServerSets_isSentWithTheNextRequests() throws {
        server.route("POST", "/login", response: setting("s1"))
        let client = try makeClient()
        let before = try echo(client, SpecEndpoint("/echo"))
        XCTAssertFalse(before.headers["cookie"]?.contains(cookieName) ?? false)

        _ = try outcome(client, SpecEndpoint("/login", method: .post), DataResponseSerializer()).justValue()

        for _ in 0..<2 {
            let after = try echo(client, SpecEndpoint("/echo"))
            XCTAssertTrue(after.headers["cookie"]?.contains("\(cookieName)=s1") ?? false, "\(after.headers)")
        }
    }

    func testACookieSetOnARedirect_goesWithTheRequestLeashFollows() throws {
        server.route("GET", "/sso", response: setting("s2", status: 302, headers: ["Location": "/echo"]))
        let echoed = try echo(try makeClient(), SpecEndpoint("/sso"))
        XCTAssertEqual(echoed.path, "/echo")
        XCTAssertTrue(echoed.headers["cookie"]?.contains("\(cookieName)=s2") ?? false, "\(echoed.headers)")
    }

    func testAnEphemeralTransport_keepsItsCookiesToItself() throws {
        server.route("POST", "/login", response: setting("s3"))
        let ephemeral = try makeClient { $0.transport(URLSessionTransport(configuration: .ephemeral)) }
        _ = try outcome(ephemeral, SpecEndpoint("/login", method: .post), DataResponseSerializer()).justValue()
        XCTAssertTrue(
            try echo(ephemeral, SpecEndpoint("/echo")).headers["cookie"]?.contains("\(cookieName)=s3") ?? false)
        let shared = try echo(try makeClient(), SpecEndpoint("/echo"))
        XCTAssertFalse(shared.headers["cookie"]?.contains(cookieName) ?? false, "the shared storage never saw it")
    }
}
