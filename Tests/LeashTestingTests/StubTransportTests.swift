import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct Item: Decodable, Equatable {
    let id: Int
}

/// An endpoint for the requests these tests send through a client.
private struct StubbedEndpoint: Endpoint, @unchecked Sendable {
    // @unchecked: created once, then only read.
    var path: String
    var method: HTTPMethod
    var parameters: Any?

    init(_ path: String, method: HTTPMethod = .get, parameters: Any? = nil) {
        self.path = path
        self.method = method
        self.parameters = parameters
    }
}

final class StubTransportTests: XCTestCase {
    private var resourcesAtStart: Int32 = 0

    override func setUp() {
        super.setUp()
        resourcesAtStart = Resources.total
    }

    override func tearDown() {
        assertResourcesReturn(to: resourcesAtStart)
        super.tearDown()
    }

    // MARK: Scripts

    func testStub_answersTheScriptedResponse() throws {
        let transport = StubTransport()
        transport.stub(.get, path: "/items/1", .json(#"{"id":1}"#, status: 201))
        let response = try XCTUnwrap(try transport.send(request("/items/1")).toBlocking(timeout: 5).single())
        XCTAssertEqual(response.httpResponse.statusCode, 201)
        XCTAssertEqual(response.httpResponse.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(String(decoding: response.data, as: UTF8.self), #"{"id":1}"#)
    }

    func testStub_sequence_answersInTurnThenRepeatsTheLast() throws {
        let transport = StubTransport()
        transport.stub(.get, path: "/me", .status(401), .json(#"{"id":7}"#), .text("last"))
        let statuses = try (0..<5).map { _ in
            try transport.send(request("/me")).toBlocking(timeout: 5).single().httpResponse.statusCode
        }
        XCTAssertEqual(statuses, [401, 200, 200, 200, 200])
        let last = try transport.send(request("/me")).toBlocking(timeout: 5).single()
        XCTAssertEqual(String(decoding: last.data, as: UTF8.self), "last")
    }

    func testStub_unstubbedRequest_is404SayingSo() throws {
        let transport = StubTransport()
        transport.stub(.get, path: "/known", .status(200))
        let response = try transport.send(request("/unknown", method: "DELETE")).toBlocking(timeout: 5).single()
        XCTAssertEqual(response.httpResponse.statusCode, 404)
        XCTAssertEqual(String(decoding: response.data, as: UTF8.self), "no stub for DELETE /unknown")
    }

    func testStub_methodMustMatch_nilMatchesAny() throws {
        let transport = StubTransport()
        transport.stub(.post, path: "/x", .status(201))
        transport.stub(path: "/any", .status(202))
        XCTAssertEqual(try status(transport, request("/x", method: "GET")), 404)
        XCTAssertEqual(try status(transport, request("/x", method: "POST")), 201)
        XCTAssertEqual(try status(transport, request("/any", method: "PATCH")), 202)
    }

    func testStub_laterStubsWin() throws {
        let transport = StubTransport()
        transport.stub(.get, path: "/x", .status(200))
        transport.stub(.get, path: "/x", .status(503))
        XCTAssertEqual(try status(transport, request("/x")), 503)
    }

    func testStub_matchingPredicate_seesTheWholeRequest() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .status(401))
        transport.stub(matching: { $0.value(forHTTPHeaderField: "Authorization") == "Bearer ok" }, [.status(200)])
        XCTAssertEqual(try status(transport, request("/x")), 401)
        var authorized = request("/x")
        authorized.setValue("Bearer ok", forHTTPHeaderField: "Authorization")
        XCTAssertEqual(try status(transport, authorized), 200)
    }

    func testStub_emptyResponseList_answers204() throws {
        let transport = StubTransport()
        transport.stub(.get, path: "/x", [])
        XCTAssertEqual(try status(transport, request("/x")), 204)
    }

    func testStub_HEAD_hasNoBody() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .text("body"))
        let response = try transport.send(request("/x", method: "HEAD")).toBlocking(timeout: 5).single()
        XCTAssertEqual(response.httpResponse.statusCode, 200)
        XCTAssertTrue(response.data.isEmpty)
    }

    func testStub_jsonEncodingValue() throws {
        struct Payload: Encodable { let id: Int }
        let transport = StubTransport()
        transport.stub(path: "/x", .json(encoding: Payload(id: 3), status: 202))
        let response = try transport.send(request("/x")).toBlocking(timeout: 5).single()
        XCTAssertEqual(response.httpResponse.statusCode, 202)
        XCTAssertEqual(String(decoding: response.data, as: UTF8.self), #"{"id":3}"#)
    }

    /// Without an encoder of its own, a JSON stub speaks the JSON of the manager it serves:
    /// a snake_case app decodes its stubs as it decodes its server.
    func testStub_jsonEncodingValue_usesTheManagersEncoder() throws {
        struct Profile: Codable, Equatable {
            let userId: Int
            let firstName: String
        }
        let transport = StubTransport()
        transport.stub(path: "/me", .json(encoding: Profile(userId: 7, firstName: "Ada")))
        let manager = try Manager.Builder()
            .url("https://api.example.com")
            .jsonEncoder { $0.keyEncodingStrategy = .convertToSnakeCase }
            .jsonDecoder { $0.keyDecodingStrategy = .convertFromSnakeCase }
            .transport(transport)
            .build()
        let client = Client(manager: manager)
        let profile = try client.eventStream(StubbedEndpoint("/me"), as: Profile.self).compactMap { $0.value }
            .toBlocking(timeout: 5).single()
        XCTAssertEqual(profile, Profile(userId: 7, firstName: "Ada"))
        let raw = try transport.send(request("/me")).toBlocking(timeout: 5).single()
        let keys = try JSONSerialization.jsonObject(with: raw.data) as? [String: Any]
        XCTAssertEqual(keys?.keys.sorted(), ["first_name", "user_id"])
    }

    /// An encoder given to the stub wins over the manager's.
    func testStub_jsonEncodingValue_withItsOwnEncoder_ignoresTheManagers() throws {
        struct Profile: Encodable { let firstName: String }
        let transport = StubTransport()
        transport.stub(path: "/me", .json(encoding: Profile(firstName: "Ada"), encoder: JSONEncoder()))
        _ = try Manager.Builder()
            .url("https://api.example.com")
            .jsonEncoder { $0.keyEncodingStrategy = .convertToSnakeCase }
            .transport(transport)
            .build()
        let raw = try transport.send(request("/me")).toBlocking(timeout: 5).single()
        XCTAssertEqual(String(decoding: raw.data, as: UTF8.self), #"{"firstName":"Ada"}"#)
    }

    // MARK: Failures

    func testStub_jsonEncodingAValueThatDoesNotEncode_failsWithEncodingInsteadOfAnEmptyBody() {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(encoding: ["ratio": Double.nan]))
        guard case .failed(_, let error) = transport.send(request("/x")).toBlocking(timeout: 5).materialize(),
            case .encoding(let reason, let underlying) = error as? LeashError
        else {
            return XCTFail("expected LeashError.encoding")
        }
        XCTAssertTrue(reason.contains("the stub's Dictionary<String, Double> body could not be encoded"), reason)
        XCTAssertTrue(underlying is EncodingError)
    }

    func testStub_transportError_isLeashTransportKeepingTheURLError() {
        let transport = StubTransport()
        transport.stub(path: "/x", .error(.notConnectedToInternet))
        guard case .failed(_, let error) = transport.send(request("/x")).toBlocking(timeout: 5).materialize() else {
            return XCTFail("expected a failure")
        }
        guard case .transport(let urlError) = error as? LeashError else {
            return XCTFail("expected LeashError.transport, got \(error)")
        }
        XCTAssertEqual(urlError.code, .notConnectedToInternet)
    }

    func testStub_cancelledError_isLeashCancelled() {
        let transport = StubTransport()
        transport.stub(path: "/x", .error(.cancelled))
        guard case .failed(_, let error) = transport.send(request("/x")).toBlocking(timeout: 5).materialize(),
            case .cancelled = error as? LeashError
        else {
            return XCTFail("expected LeashError.cancelled")
        }
    }

    // MARK: Request log

    func testRequests_areLoggedInOrder_andResetForgetsThem() throws {
        let transport = StubTransport()
        transport.stub(path: "/a", .status(200))
        let client = Client(manager: try Manager.Builder().url("http://h/api").transport(transport).build())
        _ = try client.specExecute(
            StubbedEndpoint("/a", method: .post, parameters: ["k": "v"]), serializer: DataResponseSerializer()
        )
        .toBlockingResult()
        _ = try client.specExecute(StubbedEndpoint("/b", parameters: ["q": 1]), serializer: DataResponseSerializer())
            .toBlockingResult()
        let log = transport.requests
        XCTAssertEqual(log.map { $0.httpMethod ?? "" }, ["POST", "GET"])
        XCTAssertEqual(log.map { $0.url?.absoluteString ?? "" }, ["http://h/api/a", "http://h/api/b?q=1"])
        XCTAssertEqual(log.first?.httpBody.map { String(decoding: $0, as: UTF8.self) }, #"{"k":"v"}"#)
        transport.reset()
        XCTAssertTrue(transport.requests.isEmpty)
        XCTAssertEqual(try status(transport, request("/api/a")), 404, "reset removes the stubs too")
    }

    // MARK: Delays

    func testDelay_runsOnTheGivenScheduler_inVirtualTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        transport.stub(path: "/x", .status(200, delay: 30))
        let request = request("/x")
        let observer = scheduler.start { transport.send(request).map { $0.httpResponse.statusCode } }
        XCTAssertEqual(observer.events, [.next(230, 200), .completed(230)])
    }

    func testDelay_errorsAreDelayedToo() {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        transport.stub(path: "/x", .error(.timedOut, delay: 7))
        let request = request("/x")
        let observer = scheduler.start { transport.send(request).map { $0.httpResponse.statusCode } }
        XCTAssertEqual(observer.events.map(\.time), [207])
        XCTAssertNotNil(observer.events.first?.value.error)
    }

    func testDelay_disposedBeforeTheAnswer_deliversNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        transport.stub(path: "/x", .status(200).delayed(100))
        let request = request("/x")
        let observer = scheduler.start(disposed: 250) { transport.send(request).map { $0.httpResponse.statusCode } }
        XCTAssertTrue(observer.events.isEmpty)
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testDelay_wholePipelineRunsInVirtualTime() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        transport.stub(path: "/item", .json(#"{"id":5}"#, delay: 5))
        let manager = try Manager.Builder().url("http://h").transport(transport).scheduler(scheduler).timeout(10)
            .build()
        let client = Client(manager: manager)
        let observer = scheduler.start {
            client.eventStream(StubbedEndpoint("/item"), as: Item.self).compactMap { $0.value }
        }
        XCTAssertEqual(observer.events, [.next(205, Item(id: 5)), .completed(205)])
    }

    func testDelay_longerThanTheTimeout_isLeashTimeoutAtTheVirtualDeadline() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
        transport.stub(path: "/slow", .json(#"{"id":5}"#, delay: 30))
        let manager = try Manager.Builder().url("http://h").transport(transport).scheduler(scheduler).timeout(10)
            .build()
        let client = Client(manager: manager)
        let observer = scheduler.start {
            client.eventStream(StubbedEndpoint("/slow"), as: Item.self).compactMap { $0.value }
        }
        XCTAssertEqual(observer.events.map(\.time), [210])
        guard case .timeout(let seconds) = observer.events.first?.value.error as? LeashError else {
            return XCTFail("expected LeashError.timeout, got \(observer.events)")
        }
        XCTAssertEqual(seconds, 10)
    }

    func testDelay_withoutScheduler_runsOnABackgroundQueue() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .status(200, delay: 0.1))
        let start = Date()
        let done = expectation(description: "answered")
        let subscription = transport.send(request("/x")).subscribe(onNext: { response in
            XCTAssertEqual(response.httpResponse.statusCode, 200)
            XCTAssertFalse(Thread.isMainThread)
            done.fulfill()
        })
        wait(for: [done], timeout: 5)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.09)
        subscription.dispose()
    }

    func testDelay_withoutScheduler_disposedEarly_neverDeliversAndFreesAtOnce() throws {
        // A 60 s delay: tearDown's resource check passes only if dispose dropped the
        // pending delivery (and its observer) instead of leaving it queued until then.
        let transport = StubTransport()
        transport.stub(path: "/x", .status(200, delay: 60))
        let received = SpecLocked(0)
        let subscription = transport.send(request("/x"))
            .subscribe(onNext: { _ in received.withLock { $0 += 1 } }, onError: { _ in received.withLock { $0 += 1 } })
        subscription.dispose()
        XCTAssertEqual(received.value, 0)
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testSequence_401Then200_throughTheClient() throws {
        let transport = StubTransport()
        transport.stub(.get, path: "/item", .status(401), .json(#"{"id":9}"#))
        let client = Client(manager: try Manager.Builder().url("http://h").transport(transport).build())
        let first = try client.specExecute(StubbedEndpoint("/item"), serializer: DecodableResponseSerializer<Item>())
            .toBlockingResult()
        XCTAssertEqual((first.error as? LeashError)?.statusCode, 401)
        let second = try client.specExecute(StubbedEndpoint("/item"), serializer: DecodableResponseSerializer<Item>())
            .toBlockingResult()
        XCTAssertEqual(second.value, Item(id: 9))
        XCTAssertEqual(second.source, .network)
    }

    // MARK: Helpers

    private func request(_ path: String, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: URL(string: "http://h" + path) ?? URL(fileURLWithPath: path))
        request.httpMethod = method
        return request
    }

    private func status(_ transport: StubTransport, _ request: URLRequest) throws -> Int {
        try transport.send(request).toBlocking(timeout: 5).single().httpResponse.statusCode
    }
}
