import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A 401 or 407 is a response like any other, whatever challenge it carries: delivered at
/// once as `unacceptableStatusCode` with its headers and body. (On Linux a 401 with
/// `WWW-Authenticate: Basic` used to never end: FoundationNetworking waits for a
/// credential nobody gives it.) With `CredentialHandling.credential`, Basic is answered.
final class AuthenticationChallengeLoopbackTests: LoopbackIntegrationCase {
    /// The challenges servers send, by route.
    private static let challenges: [(path: String, headers: LoopbackHeaders)] = [
        ("/challenge/basic", ["WWW-Authenticate": #"Basic realm="Fake Realm""#]),
        ("/challenge/digest", ["WWW-Authenticate": #"Digest realm="r", nonce="abc", qop="auth""#]),
        ("/challenge/negotiate", ["WWW-Authenticate": "Negotiate"]),
        (
            "/challenge/several",
            LoopbackHeaders([("WWW-Authenticate", "Bearer"), ("WWW-Authenticate", #"Basic realm="x""#)])
        ),
    ]

    private static let body = Data(#"{"error":"unauthorized"}"#.utf8)

    override func setUpWithError() throws {
        try super.setUpWithError()
        for challenge in Self.challenges {
            var headers = challenge.headers
            headers.add(name: "Content-Type", value: "application/json")
            server.route(
                "GET", challenge.path, response: LoopbackResponse(status: 401, headers: headers, body: Self.body))
        }
        server.route(
            "GET", "/challenge/proxy",
            response: LoopbackResponse(
                status: 407, headers: ["Proxy-Authenticate": #"Basic realm="x""#], body: Self.body))
        server.route(
            "GET", "/challenge/redirect",
            response: LoopbackResponse(status: 302, headers: ["Location": "/challenge/basic"]))
    }

    /// The failure an execution of `path` ended with, within 5 s.
    private func statusFailure(_ client: Client, _ path: String) throws -> StatusCodeFailure {
        let started = Date()
        let response = try outcome(client, SpecEndpoint(path), DataResponseSerializer(), timeout: 5)
        guard case .unacceptableStatusCode(let failure)? = response.error as? LeashError else {
            XCTFail("\(path) ended with \(String(describing: response.error)), not a status failure")
            throw LeashError.cancelled
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "\(path) answered at once")
        return failure
    }

    func testEveryChallengeKind_isAResponse_withItsHeadersAndBody() throws {
        let client = try makeClient()
        for challenge in Self.challenges {
            let failure = try statusFailure(client, challenge.path)
            XCTAssertEqual(failure.statusCode, 401, challenge.path)
            XCTAssertEqual(failure.body, Self.body, challenge.path)
            let header = failure.headers["WWW-Authenticate"] ?? ""
            XCTAssertTrue(header.contains(challenge.headers.values(for: "WWW-Authenticate").last ?? "?"), header)
        }
        XCTAssertEqual(server.requestCount, Self.challenges.count, "each sent once, never again with a credential")
    }

    func testProxyChallenge_isAResponse() throws {
        let failure = try statusFailure(try makeClient(), "/challenge/proxy")
        XCTAssertEqual(failure.statusCode, 407)
        XCTAssertEqual(failure.body, Self.body)
    }

    func testChallengeOnARedirectHop_isTheResponse() throws {
        let failure = try statusFailure(try makeClient(), "/challenge/redirect")
        XCTAssertEqual(failure.statusCode, 401)
        XCTAssertEqual(failure.body, Self.body)
        XCTAssertEqual(server.requestLog.map(\.path), ["/challenge/redirect", "/challenge/basic"])
    }

    func testChallengeOnADownload_isTheResponse() throws {
        let client = try makeClient()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: file) }
        let done = expectation(description: "the download ended")
        let result = SpecLocked<Response<URL>?>(nil)
        client.download(SpecEndpoint("/challenge/basic"), to: file) { response in
            result.withLock { $0 = response }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        guard case .unacceptableStatusCode(let failure)? = result.withLock({ $0 })?.error as? LeashError else {
            return XCTFail("expected a 401, got \(String(describing: result.withLock { $0 }))")
        }
        XCTAssertEqual(failure.statusCode, 401)
        XCTAssertEqual(failure.body, Self.body)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "an error page is not the download")
    }

    func testCredentialHandlingNone_withURLSessionHandling_stillDeliversTheChallenge() throws {
        // No credential stored: URLSession's own handling has nothing to send.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCredentialStorage = nil
        let client = try makeClient {
            $0.transport(URLSessionTransport(configuration: configuration)).credentials(.urlSession)
        }
        XCTAssertEqual(try statusFailure(client, "/challenge/basic").statusCode, 401)
    }

    func testCredential_answersBasic_once() throws {
        // "ada:secret" in Base64.
        server.route("GET", "/basic-auth") { request in
            if request.headers["Authorization"] == "Basic YWRhOnNlY3JldA==" { return .json(Data(#"{"ok":true}"#.utf8)) }
            return LoopbackResponse(status: 401, headers: ["WWW-Authenticate": #"Basic realm="r""#], body: Self.body)
        }
        let baseURL = server.baseURL
        // The README's snippet.
        let basic = try Manager.Builder()
            .url(baseURL)
            .credentials(.credential(URLCredential(user: "ada", password: "secret", persistence: .none)))
            .build()
        let response = try outcome(
            Client(manager: basic), SpecEndpoint("/basic-auth"), DataResponseSerializer(), timeout: 5)
        XCTAssertEqual(response.data, Data(#"{"ok":true}"#.utf8))

        server.resetCounters()
        let wrong = try makeClient {
            $0.credentials(.credential(URLCredential(user: "ada", password: "wrong", persistence: .none)))
        }
        XCTAssertEqual(try statusFailure(wrong, "/basic-auth").statusCode, 401)
        XCTAssertEqual(
            server.requestCount, 2, "the first try, and once with the credential: then the 401 is the answer")
    }
}
