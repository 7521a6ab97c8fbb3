import AsyncHTTPClient
import Foundation
import Leash
import LeashAsyncHTTPClient
import LoopbackServer
import NIOCore
import NIOPosix
import Rx
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Leash's pipeline over `AsyncHTTPClientTransport`, against a `LoopbackServer` started for
/// each test: plain requests, interceptors, a token-refresh storm, cancellation, timeouts
/// and errors. Each test ends by checking that the transport and the pipeline freed every
/// Rx resource they made (`Resources.total`, counted in debug builds).
final class AsyncHTTPClientTransportTests: XCTestCase {
    private var server: LoopbackServer!
    private var transport: AsyncHTTPClientTransport!
    private var resourcesAtStart: Int32 = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        server = try LoopbackServer()
        server.start()
        transport = AsyncHTTPClientTransport()
        resourcesAtStart = Resources.total
    }

    override func tearDownWithError() throws {
        assertResourcesReturn(to: resourcesAtStart)
        try transport.syncShutdown()
        transport = nil
        server.stop()
        server = nil
        try super.tearDownWithError()
    }

    /// A client for the server over `transport`, configured by `configure`.
    private func makeClient(
        over transport: Transport? = nil, _ configure: (Manager.Builder) -> Manager.Builder = { $0 }
    ) throws -> Client {
        let builder = Manager.Builder().url(server.baseURL).transport(transport ?? self.transport)
        return Client(manager: try configure(builder).build())
    }

    // MARK: Plain requests

    /// The Linux Notes article's snippet: a server plugs the transport into a manager.
    func testReadme_aServerPlugsItIn() async throws {
        let serviceTokens = TestAuthenticator(token: "t0")

        // README begin: AsyncHTTPClient
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: AsyncHTTPClientTransport.recommendedConfiguration)  // Leash follows redirects
        let manager = try Manager.Builder()
            .url("https://api.internal/v1")
            .authenticator(serviceTokens)
            .transport(AsyncHTTPClientTransport(client: http))
            .timeout(10)
            .build()
        // At shutdown, after the last request: try await http.shutdown()
        // README end

        XCTAssertTrue(manager.transport is AsyncHTTPClientTransport)
        XCTAssertEqual(manager.timeout, 10)
        try await http.shutdown()
    }

    func testGet_decodesTheBody() throws {
        let client = try makeClient()

        let sample = try client.rx.execute(TestEndpoint("/json"), type: Sample.self).toBlocking(timeout: 10).single()

        XCTAssertEqual(sample, Sample(id: 1, name: "Leash", tags: ["a", "b"]))
        XCTAssertEqual(server.requestCount, 1)
    }

    func testAsyncExecute_decodesTheBody() async throws {
        let client = try makeClient()

        let sample = try await client.execute(TestEndpoint("/json"), as: Sample.self)

        XCTAssertEqual(sample.name, "Leash")
    }

    func testPost_sendsMethodHeadersAndBody_asTheServerEchoesThem() throws {
        let client = try makeClient { $0.header("X-Client", "leash-ahc") }
        let endpoint = TestEndpoint(
            "/echo/things", method: .post, parameters: ["name": "Rex", "legs": 4], headers: ["X-Trace": "t-1"])

        let echoed = try client.rx.execute(endpoint, type: LoopbackServer.EchoedRequest.self)
            .toBlocking(timeout: 10).single()

        XCTAssertEqual(echoed.method, "POST")
        XCTAssertEqual(echoed.path, "/echo/things")
        XCTAssertEqual(echoed.headers["x-client"], "leash-ahc")
        XCTAssertEqual(echoed.headers["x-trace"], "t-1")
        XCTAssertEqual(echoed.headers["content-type"], "application/json")
        let body = try XCTUnwrap(echoed.body.map { Data($0.utf8) })
        let decoded = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        XCTAssertEqual(decoded?["name"] as? String, "Rex")
        XCTAssertEqual(decoded?["legs"] as? Int, 4)
        XCTAssertEqual(echoed.headers["content-length"], String(body.count))
    }

    func testResponseHead_statusAndRepeatedFieldsJoined() throws {
        var response = LoopbackResponse.json(Data(#"{"ok":true}"#.utf8), status: 201)
        response.headers.add(name: "X-Part", value: "one")
        response.headers.add(name: "x-part", value: "two")
        server.route("GET", "/created", response: response)
        let request = URLRequest(url: server.url(path: "/created"))

        let answer = try transport.send(request).toBlocking(timeout: 10).single()

        XCTAssertEqual(answer.httpResponse.statusCode, 201)
        XCTAssertEqual(answer.httpResponse.value(forHTTPHeaderField: "X-Part"), "one, two")
        XCTAssertEqual(answer.httpResponse.url, request.url)
        XCTAssertEqual(answer.data, Data(#"{"ok":true}"#.utf8))
        XCTAssertNil(answer.metrics)
    }

    func testAnswers_areHandedOnTheEventLoop_unlessAskedOtherwise_andTransfersNeverAre() throws {
        let offLoop = AsyncHTTPClientTransport(deliversOnEventLoop: false)
        defer { XCTAssertNoThrow(try offLoop.syncShutdown()) }
        let request = URLRequest(url: server.url(path: "/json"))
        let onLoop = Locked<[Bool]>([])
        let record: @Sendable () -> Void = {
            onLoop.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
        }

        for transport in [transport!, offLoop] {
            _ = try transport.send(request).do(onNext: { _ in record() }).toBlocking(timeout: 10).single()
            _ = try transport.transfer(TransportRequest(request)).do(onNext: { _ in record() })
                .toBlocking(timeout: 10).toArray()
        }

        XCTAssertEqual(
            onLoop.value, [true, false, false, false, false, false, false, false],
            "on an event loop: the default's send, its transfer's 3 events, the same off the loop")
    }

    func testChainedRequests_onTheLoopAndOffIt_allSucceed() throws {
        let offLoop = AsyncHTTPClientTransport(deliversOnEventLoop: false)
        defer { XCTAssertNoThrow(try offLoop.syncShutdown()) }
        for transport in [transport!, offLoop] {
            let client = try makeClient(over: transport)
            // Each request starts from the answer to the one before, on the thread it came on.
            let chain = (0..<20).reduce(Observable.just(0)) { chain, _ in
                chain.flatMap { count in
                    client.rx.execute(TestEndpoint("/json"), type: Sample.self).map { _ in count + 1 }
                }
            }

            XCTAssertEqual(try chain.toBlocking(timeout: 20).single(), 20)
        }
        XCTAssertEqual(server.requestCount, 40)
    }

    func testTransfer_toAStream_getsTheWholeBodyAsOneChunk_byTheProtocolsDefault() throws {
        let request = TransportRequest(URLRequest(url: server.url(path: "/large/100000")), destination: .stream)

        let events = try transport.transfer(request).toBlocking(timeout: 10).toArray()

        var chunks = Data()
        var completed: TransportResponse?
        for event in events {
            if case .body(let chunk) = event { chunks.append(chunk) }
            if case .completed(let response) = event { completed = response }
        }
        XCTAssertEqual(chunks, Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) }))
        XCTAssertEqual(completed?.httpResponse.statusCode, 200)
        XCTAssertEqual(completed?.data, Data(), "a stream's body comes in chunks, not in the end")
    }

    func testUnacceptableStatus_failsTypedWithTheBody() throws {
        let client = try makeClient()

        let response = try outcome(client.rx.execute(TestEndpoint("/status/503"), type: Sample.self))

        guard case .unacceptableStatusCode(let failure)? = response.error as? LeashError else {
            return XCTFail("expected .unacceptableStatusCode, got \(response)")
        }
        XCTAssertEqual(failure.statusCode, 503)
        XCTAssertFalse(failure.body.isEmpty, "the error page is kept")
    }

    func testRedirect_isFollowedByLeash_notByTheClient() throws {
        var redirect = LoopbackResponse.status(302)
        redirect.headers.add(name: "Location", value: "/json")
        server.route("GET", "/moved", response: redirect)
        let client = try makeClient()

        let sample = try client.rx.execute(TestEndpoint("/moved"), type: Sample.self).toBlocking(timeout: 10).single()
        let head = try transport.send(URLRequest(url: server.url(path: "/moved"))).toBlocking(timeout: 10).single()

        XCTAssertEqual(sample.id, 1)
        XCTAssertEqual(head.httpResponse.statusCode, 302, "the transport hands the 3xx to the pipeline")
    }

    // MARK: Interceptors

    func testExecutionAndCompletionInterceptors_runAroundTheRequest() throws {
        let stamp = StampInterceptor()
        let recorder = CompletionRecorder()
        let client = try makeClient { $0.add(interceptor: stamp).add(interceptor: recorder) }

        let echoed = try client.rx.execute(TestEndpoint("/echo"), type: LoopbackServer.EchoedRequest.self)
            .toBlocking(timeout: 10).single()

        XCTAssertEqual(echoed.headers["x-stamp"], "attempt-1", "the execution interceptor's request was sent")
        XCTAssertEqual(stamp.calls.value, 1)
        XCTAssertEqual(recorder.outcomes.value, ["success 200"])
    }

    // MARK: Token refresh

    func testStormOf401s_oneRefresh_everyRequestRetriedAndSucceeds() throws {
        let count = 100
        let tokens = TokenServer()
        server.route("GET", "/items") { request in
            tokens.hold.waitWhileClosed()
            tokens.itemRequests.withLock { $0 += 1 }
            guard request.headers["Authorization"] == "Bearer \(tokens.current.value)" else {
                tokens.rejected.withLock { $0 += 1 }
                return .status(401)
            }
            return .json(Data(#"{"id":7}"#.utf8))
        }
        server.route("POST", "/token") { _ in
            let token = tokens.issued.withLock { issued -> String in
                issued += 1
                return "t\(issued)"
            }
            tokens.current.withLock { $0 = token }
            return .json(["token": token])
        }
        let authenticator = TestAuthenticator(token: "expired")
        let tokenClient = try makeClient()
        let refresher = TokenRefresher(authenticator: authenticator) {
            tokenClient.rx.execute(TestEndpoint("/token", method: .post), type: [String: String].self)
                .do(onNext: { body in authenticator.token.withLock { $0 = body["token"] } })
                .asCompletable()
        }
        let client = try makeClient { $0.authenticator(authenticator).refreshing(with: refresher).timeout(60) }
        let outcomes = Locked<[Response<Item>]>([])
        let done = expectation(description: "\(count) outcomes")
        done.expectedFulfillmentCount = count

        // Every request is started (and built with the expired token) before the server
        // answers any, so that all of them meet the 401.
        tokens.hold.close()
        for _ in 0..<count {
            client.execute(TestEndpoint("/items")) { (response: Response<Item>) in
                outcomes.withLock { $0.append(response) }
                done.fulfill()
            }
        }
        tokens.hold.open()
        wait(for: [done], timeout: 60)

        XCTAssertEqual(tokens.issued.value, 1, "exactly one refresh")
        XCTAssertEqual(outcomes.value.filter { $0.value == Item(id: 7) }.count, count)
        XCTAssertEqual(tokens.rejected.value, count, "every request met the 401 once")
        XCTAssertEqual(tokens.itemRequests.value, 2 * count, "and was sent again")
        XCTAssertEqual(authenticator.token.value, "t1")
        XCTAssertFalse(refresher.isRefreshing)
    }

    // MARK: Cancellation

    func testDisposeMidRequest_closesTheConnection_andDeliversNothing() throws {
        let client = try makeClient()
        let events = Locked<[String]>([])

        let subscription = client.rx.execute(TestEndpoint("/hang"), type: Sample.self).subscribe(
            onNext: { _ in events.withLock { $0.append("value") } },
            onError: { error in events.withLock { $0.append("error \(error)") } },
            onCompleted: { events.withLock { $0.append("completed") } })
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 }, "the request reached the server")
        subscription.dispose()

        XCTAssertTrue(
            server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 },
            "the client closed the connection: \(server.counters)")
        XCTAssertEqual(events.value, [])
    }

    func testTransportDisposedBeforeTheAnswer_cancelsTheTask() throws {
        let events = Locked<[String]>([])

        let subscription = transport.send(URLRequest(url: server.url(path: "/delay/5000"))).subscribe(
            onNext: { _ in events.withLock { $0.append("value") } },
            onError: { error in events.withLock { $0.append("error \(error)") } })
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        subscription.dispose()

        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 }, "\(server.counters)")
        XCTAssertEqual(events.value, [])
    }

    func testCancelledTask_endsTheAwait_andClosesTheConnection() async throws {
        let client = try makeClient()
        let server = self.server!

        let task = Task { try await client.execute(TestEndpoint("/hang"), as: Sample.self) }
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 })
        task.cancel()

        do {
            let value = try await task.value
            XCTFail("expected a cancellation, got \(value)")
        } catch {
            XCTAssertTrue(
                error is CancellationError || (error as? LeashError).map { "\($0)".contains("cancel") } == true,
                "\(error)")
        }
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 }, "\(server.counters)")
    }

    // MARK: Timeouts and errors

    func testManagerTimeout_onASlowRoute_failsTyped_andCancelsTheRequest() throws {
        let client = try makeClient { $0.timeout(0.3) }
        let start = Date()

        let response = try outcome(client.rx.execute(TestEndpoint("/delay/5000"), type: Sample.self))

        guard case .timeout(let seconds)? = response.error as? LeashError else {
            return XCTFail("expected LeashError.timeout, got \(response)")
        }
        XCTAssertEqual(seconds, 0.3)
        XCTAssertLessThan(Date().timeIntervalSince(start), 4, "ended by the timeout, not by the answer")
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.clientDisconnectCount == 1 }, "\(server.counters)")
    }

    func testClientReadTimeout_isATimedOutTransportError_keepingTheCause() throws {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        configuration.timeout.read = .milliseconds(200)
        let impatient = AsyncHTTPClientTransport(configuration: configuration)
        defer { XCTAssertNoThrow(try impatient.syncShutdown()) }
        let client = try makeClient(over: impatient)

        let response = try outcome(client.rx.execute(TestEndpoint("/delay/3000"), type: Sample.self))

        let error = try XCTUnwrap(transportError(response))
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertEqual(error.userInfo[NSUnderlyingErrorKey] as? HTTPClientError, .readTimeout)
    }

    func testConnectionRefused_isCannotConnectToHost() throws {
        let closed = try LoopbackServer()
        let url = closed.baseURL
        closed.stop()
        let client = try makeClient { $0.url(url).maximumRetryCount(0) }

        let response = try outcome(client.rx.execute(TestEndpoint("/json"), type: Sample.self))

        let error = try XCTUnwrap(transportError(response))
        XCTAssertEqual(error.code, .cannotConnectToHost)
        XCTAssertNotNil(error.userInfo[NSUnderlyingErrorKey], "SwiftNIO's error is kept")
    }

    func testConnectionClosedMidBody_isNetworkConnectionLost() throws {
        let client = try makeClient { $0.maximumRetryCount(0) }

        let response = try outcome(client.rx.execute(TestEndpoint("/close-mid-body"), type: Data.self))

        let error = try XCTUnwrap(transportError(response))
        XCTAssertEqual(error.code, .networkConnectionLost, "\(error.userInfo)")
    }

    func testGarbage_isBadServerResponse() throws {
        let client = try makeClient { $0.maximumRetryCount(0) }

        let response = try outcome(client.rx.execute(TestEndpoint("/garbage"), type: Data.self))

        let error = try XCTUnwrap(transportError(response))
        XCTAssertEqual(error.code, .badServerResponse, "\(error.userInfo)")
    }

    func testBodyStream_isRefusedTyped_beforeAnythingIsSent() throws {
        var request = URLRequest(url: server.url(path: "/echo"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("body".utf8))

        let result = transport.send(request).toBlocking(timeout: 10).materialize()

        guard case .failed(_, let error) = result, case .encoding? = error as? LeashError else {
            return XCTFail("expected LeashError.encoding, got \(result)")
        }
        XCTAssertEqual(server.requestCount, 0)
    }

    // MARK: Helpers

    /// The outcome of `values` (one value, or the error) as a `Response`.
    private func outcome<Value>(_ values: Observable<Value>) throws -> Response<Value> {
        switch values.toBlocking(timeout: 15).materialize() {
        case .completed(let elements):
            return try .success(value: XCTUnwrap(elements.first), extra: nil)
        case .failed(_, let error):
            return .failure(error)
        }
    }

    /// The `URLError` of a `LeashError.transport` in `response`, or a test failure.
    private func transportError<Value>(
        _ response: Response<Value>, file: StaticString = #filePath, line: UInt = #line
    ) -> URLError? {
        guard case .transport(let error)? = response.error as? LeashError else {
            XCTFail("expected LeashError.transport, got \(response)", file: file, line: line)
            return nil
        }
        return error
    }
}

// MARK: Fixtures

/// The body of the server's `GET /json`.
private struct Sample: Codable, Equatable, Sendable {
    let id: Int
    let name: String
    let tags: [String]
}

/// The body of the refresh tests' `/items`.
private struct Item: Codable, Equatable, Sendable {
    let id: Int
}

/// An endpoint at `path`.
private struct TestEndpoint: Endpoint, @unchecked Sendable {
    // @unchecked: `parameters` is set once, by the test, and only read.
    let path: String
    let method: HTTPMethod
    let parameters: Any?
    let headers: [String: String]?

    init(
        _ path: String, method: HTTPMethod = .get, parameters: [String: Any]? = nil, headers: [String: String]? = nil
    ) {
        self.path = path
        self.method = method
        self.parameters = parameters
        self.headers = headers
    }
}

/// A value shared with callbacks on other threads; every access holds the lock.
private final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value { lock.withLock { stored } }

    @discardableResult
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

/// Sends `Authorization: Bearer <token>` with the token it holds (a refresh replaces it).
private final class TestAuthenticator: Authenticator, Sendable {
    static var header: String { "Authorization" }
    let token: Locked<String?>

    init(token: String) {
        self.token = Locked(token)
    }

    var authentication: String? { token.value.map { "Bearer \($0)" } }
}

/// An execution interceptor that stamps each attempt's request with a header.
private final class StampInterceptor: ExecutionInterceptor, Sendable {
    let calls = Locked(0)

    func intercept(chain: InterceptorChain<Data>) {
        calls.withLock { $0 += 1 }
        guard var request = try? chain.request.convertible.asURLRequest() else { return chain.proceed() }
        request.setValue("attempt-\(chain.attempt)", forHTTPHeaderField: "X-Stamp")
        chain.proceed(with: request)
    }
}

/// A completion interceptor that records each outcome it sees.
private final class CompletionRecorder: CompletionInterceptor, Sendable {
    let outcomes = Locked<[String]>([])

    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        let line: String
        switch response {
        case .success: line = "success \(response.statusCode ?? -1)"
        case .failure(let error): line = "failure \(error)"
        }
        outcomes.withLock { $0.append(line) }
        chain.proceed()
    }
}

/// The refresh storm's server side: its current token, and what it counted.
private final class TokenServer: Sendable {
    let current = Locked("t0")
    let issued = Locked(0)
    let itemRequests = Locked(0)
    let rejected = Locked(0)
    /// Holds `/items` answers until every request of the storm has been started.
    let hold = HandlerGate()
}

/// Waits up to 2 s for `Resources.total` to come back to `baseline` (objects are freed on
/// other threads a moment after the work ended), then asserts it did.
private func assertResourcesReturn(to baseline: Int32, file: StaticString = #filePath, line: UInt = #line) {
    let deadline = Date(timeIntervalSinceNow: 2)
    while Resources.total != baseline && Date() < deadline {
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
    }
    XCTAssertEqual(Resources.total, baseline, "Rx resources still alive", file: file, line: line)
}
