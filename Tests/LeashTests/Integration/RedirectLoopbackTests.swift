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

/// Redirects against the loopback server: Leash follows them itself (URLSession is told
/// not to), by the manager's or the endpoint's `RedirectPolicy`.
final class RedirectLoopbackTests: LoopbackIntegrationCase {
    private typealias Echo = LoopbackServer.EchoedRequest

    private func redirect(_ status: Int, to location: String) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: ["Location": location])
    }

    private func echoed(_ response: Response<Echo>, file: StaticString = #filePath, line: UInt = #line) throws -> Echo {
        guard let echo = response.value else {
            XCTFail("expected the echo, got \(String(describing: response.error))", file: file, line: line)
            throw LeashError.cancelled
        }
        return echo
    }

    private func execute(_ client: Client, _ endpoint: Endpoint) throws -> Response<Echo> {
        try outcome(client, endpoint, DecodableResponseSerializer<Echo>())
    }

    // MARK: Method and body, status by status

    func test307_afterPost_keepsMethodAndBody() throws {
        server.route("POST", "/old", response: redirect(307, to: "/echo"))
        let echo = try echoed(
            execute(try makeClient(), SpecEndpoint("/old", method: .post, parameters: ["name": "Ada"])))
        XCTAssertEqual(echo.method, "POST")
        XCTAssertEqual(echo.path, "/echo")
        XCTAssertEqual(echo.body, #"{"name":"Ada"}"#, "URLSession on Linux would have sent no body")
        XCTAssertEqual(echo.headers["content-type"], "application/json")
        XCTAssertEqual(server.requestCount, 2)
    }

    func test308_afterPut_keepsMethodAndBinaryBody() throws {
        let body = Data((0...255).map { UInt8($0) })
        server.route("PUT", "/old", response: redirect(308, to: "/echo"))
        let echo = try echoed(execute(try makeClient(), SpecEndpoint("/old", method: .put, parameters: body)))
        XCTAssertEqual(echo.method, "PUT")
        XCTAssertEqual(Data(base64Encoded: echo.bodyBase64), body)
    }

    func test303_afterPost_becomesAGetWithoutBodyOrBodyHeaders() throws {
        server.route("POST", "/form", response: redirect(303, to: "/echo"))
        let echo = try echoed(
            execute(try makeClient(), SpecEndpoint("/form", method: .post, parameters: ["name": "Ada"])))
        XCTAssertEqual(echo.method, "GET")
        XCTAssertEqual(echo.bodyBase64, "")
        XCTAssertNil(echo.headers["content-type"])
    }

    func test302_afterPost_becomesAGet_andAfterPut_staysAPut() throws {
        server.route("POST", "/moved", response: redirect(302, to: "/echo"))
        server.route("PUT", "/moved", response: redirect(302, to: "/echo"))
        let client = try makeClient()
        let fromPost = try echoed(execute(client, SpecEndpoint("/moved", method: .post, parameters: ["a": 1])))
        XCTAssertEqual(fromPost.method, "GET")
        XCTAssertEqual(fromPost.bodyBase64, "")
        let fromPut = try echoed(execute(client, SpecEndpoint("/moved", method: .put, parameters: ["a": 1])))
        XCTAssertEqual(fromPut.method, "PUT")
        XCTAssertEqual(fromPut.body, #"{"a":1}"#)
    }

    func testRelativeLocation_isResolvedAgainstTheRequestsURL() throws {
        server.route("GET", "/a/b/start", response: redirect(301, to: "../../echo?from=b"))
        let response = try execute(try makeClient(), SpecEndpoint("/a/b/start"))
        let echo = try echoed(response)
        XCTAssertEqual(echo.path, "/echo")
        XCTAssertEqual(echo.query, "from=b")
        XCTAssertEqual(response.details?.request?.url?.path, "/echo", "the details carry the final request")
    }

    // MARK: Credentials across origins

    func testSameOriginRedirect_keepsTheAuthorization_anotherOriginDropsIt() throws {
        let other = try LoopbackServer()
        other.start()
        defer { other.stop() }
        server.route("GET", "/here", response: redirect(302, to: "/echo"))
        server.route("GET", "/away", response: redirect(302, to: other.url(path: "/echo").absoluteString))
        let client = try makeClient { $0.authenticator(SpecAuthenticator(token: "s3cret")) }
        let endpointHeaders = ["Cookie": "theme=dark", "X-Trace": "t-1"]

        let here = try echoed(execute(client, SpecEndpoint("/here", headers: endpointHeaders)))
        XCTAssertEqual(here.headers["authorization"], "Bearer s3cret")
        XCTAssertEqual(here.headers["cookie"], "theme=dark")

        let away = try echoed(execute(client, SpecEndpoint("/away", headers: endpointHeaders)))
        XCTAssertNil(away.headers["authorization"], "a credential never follows a redirect to another server")
        XCTAssertNil(away.headers["cookie"])
        XCTAssertEqual(away.headers["x-trace"], "t-1", "other headers go on")
        XCTAssertEqual(other.requestCount, 1)
    }

    // MARK: Policies

    func testDoNotFollow_onTheManager_makesTheRedirectTheResponse() throws {
        server.route("GET", "/old", response: redirect(302, to: "/echo"))
        let response = try execute(try makeClient { $0.redirects(.doNotFollow) }, SpecEndpoint("/old"))
        guard case .unacceptableStatusCode(let failure)? = response.error as? LeashError else {
            return XCTFail("expected the 302 as a failure, got \(response)")
        }
        XCTAssertEqual(failure.statusCode, 302)
        XCTAssertEqual(failure.kind, .redirect)
        XCTAssertEqual(failure.headers["Location"], "/echo")
        XCTAssertEqual(server.requestCount, 1)
    }

    func testDoNotFollow_withRedirectsAcceptable_hasTheRedirectAsItsValue() throws {
        server.route("GET", "/old", response: redirect(301, to: "/echo"))
        let endpoint = SpecEndpoint("/old", acceptableStatusCodes: Set(200..<400), redirectPolicy: .doNotFollow)
        let response = try outcome(try makeClient(), endpoint, DataResponseSerializer())
        XCTAssertEqual(response.statusCode, 301)
        XCTAssertEqual(response.headers["Location"], "/echo")
    }

    func testTheEndpointsPolicy_overridesTheManagers() throws {
        server.route("GET", "/old", response: redirect(302, to: "/echo"))
        let notFollowing = try makeClient { $0.redirects(.doNotFollow) }
        let following = try echoed(execute(notFollowing, SpecEndpoint("/old", redirectPolicy: .follow)))
        XCTAssertEqual(following.path, "/echo")
        let stopped = try execute(try makeClient(), SpecEndpoint("/old", redirectPolicy: .doNotFollow))
        XCTAssertEqual((stopped.error as? LeashError)?.statusCode, 302)
    }

    func testCustomPolicy_seesEachHop_andMayChangeTheNextRequest() throws {
        server.route("POST", "/one", response: redirect(307, to: "/two"))
        server.route("POST", "/two", response: redirect(307, to: "/echo"))
        let seen = SpecLocked<[String]>([])
        let policy = RedirectPolicy.custom { redirect in
            seen.withLock {
                $0.append(
                    "\(redirect.hop) \(redirect.response.statusCode) \(redirect.request.url?.path ?? "?") → "
                        + (redirect.proposedRequest.url?.path ?? "?"))
            }
            var next = redirect.proposedRequest
            next.setValue("hop-\(redirect.hop)", forHTTPHeaderField: "X-Hop")
            return next
        }
        let endpoint = SpecEndpoint("/one", method: .post, parameters: ["n": 1], redirectPolicy: policy)
        let echo = try echoed(execute(try makeClient(), endpoint))
        XCTAssertEqual(echo.headers["x-hop"], "hop-2")
        XCTAssertEqual(echo.body, #"{"n":1}"#)
        XCTAssertEqual(seen.value, ["1 307 /one → /two", "2 307 /two → /echo"])
    }

    func testCustomPolicy_returningNil_stopsAtThatRedirect() throws {
        server.route("GET", "/one", response: redirect(302, to: "/two"))
        server.route("GET", "/two", response: redirect(302, to: "/echo"))
        let policy = RedirectPolicy.custom { $0.hop < 2 ? $0.proposedRequest : nil }
        let response = try execute(try makeClient { $0.redirects(policy) }, SpecEndpoint("/one"))
        guard case .unacceptableStatusCode(let failure)? = response.error as? LeashError else {
            return XCTFail("expected the second 302, got \(response)")
        }
        XCTAssertEqual(failure.headers["Location"], "/echo")
        XCTAssertEqual(server.requestCount, 2)
    }

    // MARK: Limits

    func testALoop_endsWithTooManyRedirects_afterTheLimit() throws {
        server.route("GET", "/loop", response: redirect(302, to: "/loop"))
        let response = try execute(try makeClient { $0.redirects(.follow(limit: 3)) }, SpecEndpoint("/loop"))
        guard case .tooManyRedirects(let limit, let url)? = response.error as? LeashError else {
            return XCTFail("expected tooManyRedirects, got \(response)")
        }
        XCTAssertEqual(limit, 3)
        XCTAssertEqual(url.path, "/loop")
        XCTAssertEqual(server.requestCount, 4, "the first request and 3 hops")
        XCTAssertTrue("\(response.error!)".contains("More than 3 redirects"), "\(response.error!)")
    }

    func testTheDefaultLimit_is20Hops() throws {
        server.route("GET", "/loop", response: redirect(307, to: "/loop"))
        let response = try execute(try makeClient(), SpecEndpoint("/loop"))
        guard case .tooManyRedirects(20, _)? = response.error as? LeashError else {
            return XCTFail("expected tooManyRedirects(20), got \(response)")
        }
        XCTAssertEqual(server.requestCount, 21)
    }

    func testTheLimit_isPerAttempt_aRetryStartsOver() throws {
        let hops = SpecLocked(0)
        server.route("GET", "/flaky") { _ in
            // Two hops, then a 503 once (retried), then two hops and the answer.
            let count = hops.withLock { count -> Int in
                count += 1
                return count
            }
            switch count {
            case 1, 2, 4, 5: return LoopbackResponse(status: 302, headers: ["Location": "/flaky"])
            case 3: return .status(503)
            default: return .json(["ok": true])
            }
        }
        let client = try makeClient {
            $0.redirects(.follow(limit: 2)).add(interceptor: RetryOnceOn503())
        }
        let response = try outcome(client, SpecEndpoint("/flaky"), DataResponseSerializer())
        XCTAssertEqual(response.statusCode, 200, "\(String(describing: response.error))")
        XCTAssertEqual(server.requestCount, 6)
    }

    func testAMissingOrForeignLocation_isNotFollowed() throws {
        server.route("GET", "/nowhere", response: LoopbackResponse(status: 302))
        server.route("GET", "/ftp", response: redirect(302, to: "ftp://example.com/file"))
        let client = try makeClient()
        let nowhere = try execute(client, SpecEndpoint("/nowhere"))
        XCTAssertEqual((nowhere.error as? LeashError)?.statusCode, 302, "\(nowhere)")
        XCTAssertEqual((try execute(client, SpecEndpoint("/ftp")).error as? LeashError)?.statusCode, 302)
        XCTAssertEqual(server.requestCount, 2)
    }

    // MARK: Transfers

    func testAnUploadFromAFile_isSentAgainAfterA307() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-\(UUID().uuidString).bin")
        let body = Data(repeating: 7, count: 200_000)
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        server.route("POST", "/upload", response: redirect(307, to: "/echo"))
        let endpoint = SpecEndpoint("/upload", method: .post, parameters: UploadFile(file))
        let events = try makeClient().uploadEventStream(endpoint, serializer: DecodableResponseSerializer<Echo>())
            .toBlocking(timeout: 10).toArray()
        guard let echo = events.lazy.compactMap(\.value).first else {
            return XCTFail("expected the echo, got \(events)")
        }
        XCTAssertEqual(echo.method, "POST")
        XCTAssertEqual(Data(base64Encoded: echo.bodyBase64)?.count, body.count)
        XCTAssertEqual(Data(base64Encoded: echo.bodyBase64), body)
    }

    func testADownload_followsARedirect_andWritesOnlyTheFinalBody() throws {
        server.route(
            "GET", "/report",
            response: LoopbackResponse(status: 302, headers: ["Location": "/bytes/5000"], body: Data("moved".utf8)))
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("redirect-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let saved = try makeClient().downloadEventStream(SpecEndpoint("/report"), to: destination)
            .toBlocking(timeout: 10).toArray().lazy.compactMap(\.value).first
        XCTAssertEqual(saved, destination)
        XCTAssertEqual(try Data(contentsOf: destination).count, 5000)
    }

    // MARK: What is reported

    func testEachHop_isReportedAsASentRequest() throws {
        server.route("GET", "/old", response: redirect(301, to: "/echo"))
        let events = try makeClient().eventStream(SpecEndpoint("/old"), as: Echo.self).toBlocking(timeout: 10).toArray()
        let sent = events.compactMap { event -> String? in
            guard case .requestSent(let request, _) = event else { return nil }
            return request.url?.path
        }
        XCTAssertEqual(sent, ["/old", "/echo"])
        let statuses = events.compactMap { event -> Int? in
            guard case .responseReceived(let head, _, _) = event else { return nil }
            return head.statusCode
        }
        XCTAssertEqual(statuses, [301, 200])
    }
}

/// Retries a 503 once.
private final class RetryOnceOn503: CompletionInterceptor, Sendable {
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        if (response.error as? LeashError)?.statusCode == 503, chain.attempt == 1 {
            try? chain.retry()
        } else {
            chain.proceed()
        }
    }
}
