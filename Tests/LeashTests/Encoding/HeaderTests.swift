import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private final class TokenAuthenticator: Authenticator, @unchecked Sendable {
    // @unchecked: tests set the token before requests are built, on one thread.
    static var header: String { "X-Api-Token" }
    var token: String?
    var authentication: String? { token.map { "Token \($0)" } }
    init(token: String?) { self.token = token }
}

private final class BearerAuthenticator: Authenticator {
    static var header: String { "Authorization" }
    var authentication: String? { "Bearer abc" }
}

final class HeaderTests: XCTestCase {
    func testUserAgent_isLeashByDefault() throws {
        XCTAssertEqual(try specRequest(SpecEndpoint("/x")).value(forHTTPHeaderField: "User-Agent"), "Leash/1.0")
    }

    func testUserAgent_defaultHeaderOverridesIt() throws {
        let request = try specRequest(SpecEndpoint("/x")) { $0.header("User-Agent", "MyApp/2") }
        XCTAssertEqual(request.value(forHTTPHeaderField: "User-Agent"), "MyApp/2")
    }

    func testDefaultHeaders_areSent() throws {
        let request = try specRequest(SpecEndpoint("/x")) {
            $0.headers(["Accept": "application/json", "X-Client": "ios"])
        }
        XCTAssertEqual(request.value(forHTTPHeaderField: "Accept"), "application/json")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Client"), "ios")
    }

    func testEndpointHeaders_overrideDefaults_caseInsensitively() throws {
        let endpoint = SpecEndpoint("/x", headers: ["x-client": "web", "X-Extra": "1"])
        let request = try specRequest(endpoint) { $0.header("X-Client", "ios") }
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Client"), "web")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Extra"), "1")
        let clientFields = (request.allHTTPHeaderFields ?? [:]).filter { $0.key.lowercased() == "x-client" }
        XCTAssertEqual(clientFields.map(\.value), ["web"], "one field, not one per spelling")
    }

    func testDefaultHeaders_sameNameInAnotherCase_replaceEachOther() throws {
        let request = try specRequest(SpecEndpoint("/x")) {
            $0.header("Accept", "text/plain").headers(["accept": "application/json"]).header("X-Id", "1")
                .header("x-id", "2")
        }
        let fields = request.allHTTPHeaderFields ?? [:]
        XCTAssertEqual(fields.filter { $0.key.lowercased() == "accept" }.map(\.value), ["application/json"])
        XCTAssertEqual(fields.filter { $0.key.lowercased() == "x-id" }.map(\.value), ["2"])
        let manager = try Manager.Builder().url("http://h").header("Accept", "a").header("ACCEPT", "b").build()
        XCTAssertEqual(manager.defaultHeaders, ["ACCEPT": "b"], "one default, the later spelling")
    }

    func testEndpointHeader_inLowerCase_replacesTheDefaultAccept() throws {
        let endpoint = SpecEndpoint("/x", headers: ["accept": "text/csv"])
        let request = try specRequest(endpoint) { $0.headers(["Accept": "application/json"]) }
        let accepts = (request.allHTTPHeaderFields ?? [:]).filter { $0.key.lowercased() == "accept" }
        XCTAssertEqual(accepts.map(\.value), ["text/csv"], "the endpoint's, and only once")
    }

    func testAuthenticator_credentialGoesInItsStaticHeader() throws {
        let authenticator = TokenAuthenticator(token: "s3cret")
        let request = try specRequest(SpecEndpoint("/x")) { $0.authenticator(authenticator) }
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Api-Token"), "Token s3cret")
        XCTAssertNil(request.value(forHTTPHeaderField: "Authorization"))
    }

    func testAuthenticator_nilAuthentication_sendsNoHeader() throws {
        let request = try specRequest(SpecEndpoint("/x")) { $0.authenticator(TokenAuthenticator(token: nil)) }
        XCTAssertNil(request.value(forHTTPHeaderField: "X-Api-Token"))
        let names = (request.allHTTPHeaderFields ?? [:]).keys.map { $0.lowercased() }
        XCTAssertFalse(names.contains("x-api-token"))
    }

    func testAuthenticator_isReadForEachRequest() throws {
        let authenticator = TokenAuthenticator(token: "one")
        let manager = try Manager.Builder().url("http://h").authenticator(authenticator).build()
        let client = Client(manager: manager)
        XCTAssertEqual(
            try client.urlRequest(for: SpecEndpoint("/x")).value(forHTTPHeaderField: "X-Api-Token"), "Token one")
        authenticator.token = "two"
        XCTAssertEqual(
            try client.urlRequest(for: SpecEndpoint("/x")).value(forHTTPHeaderField: "X-Api-Token"), "Token two")
    }

    func testAuthenticator_authorizationHeader_andEndpointOverride() throws {
        let plain = try specRequest(SpecEndpoint("/x")) { $0.authenticator(BearerAuthenticator()) }
        XCTAssertEqual(plain.value(forHTTPHeaderField: "Authorization"), "Bearer abc")
        // An endpoint that must send another credential (a refresh call) can.
        let overridden = try specRequest(SpecEndpoint("/refresh", headers: ["Authorization": "Basic xyz"])) {
            $0.authenticator(BearerAuthenticator())
        }
        XCTAssertEqual(overridden.value(forHTTPHeaderField: "Authorization"), "Basic xyz")
    }

    func testRequest_methodAndURLSessionTimeoutAreSet() throws {
        let request = try specRequest(SpecEndpoint("/x", method: "purge")) { $0.timeout(0.3) }
        XCTAssertEqual(request.httpMethod, "PURGE")
        // Leash enforces its own timeout; URLSession's (whole seconds on Linux, and firing at
        // once below 1 s) is set well out of the way.
        XCTAssertGreaterThanOrEqual(request.timeoutInterval, 60)
    }

    func testRequest_infiniteEndpointTimeout_keepsAFiniteURLSessionTimeout() throws {
        let request = try specRequest(SpecEndpoint("/x", timeout: .infinity))
        XCTAssertEqual(request.timeoutInterval, 60)
    }
}
