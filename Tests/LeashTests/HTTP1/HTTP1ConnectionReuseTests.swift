import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How `HTTP1Transport` keeps and reuses connections: a kept-alive connection the server
/// closed while idle is never used (the next request goes on a new one, once); a request that
/// never left a reused connection is sent again once on a fresh one, and one that did leave
/// is never sent again; sequential requests share one connection; the per-host limit holds;
/// idle connections are closed after the idle timeout.
final class HTTP1ConnectionReuseTests: LoopbackIntegrationCase {
    /// A response with a body of 2 bytes that keeps the connection (HTTP/1.1's default).
    private static let keptAliveOK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    private func rawServer(_ handler: @escaping @Sendable (HTTP1RawConnection) -> Void) throws -> HTTP1RawServer {
        let server = try HTTP1RawServer(handler: handler)
        addTeardownBlock { server.stop() }
        return server
    }

    /// Whether `response` came on a connection that carried a request before.
    private func isReused(_ response: TransportResponse) -> Bool? {
        response.metrics?.transactions.first?.isReusedConnection
    }

    // MARK: (a) a pooled connection the server closed while idle

    /// A server that answers the first request of its first connection, keeping it alive by
    /// its headers, then closes it (`reset`: with a RST); later connections answer every
    /// request.
    private func serverClosingItsFirstConnectionWhenIdle(reset: Bool) throws -> HTTP1RawServer {
        try rawServer { connection in
            while connection.readRequest() != nil {
                connection.write(Self.keptAliveOK)
                if connection.number == 0 {
                    return reset ? connection.reset() : connection.close()
                }
            }
        }
    }

    private func assertTheNextRequestGoesOnANewConnection(_ raw: HTTP1RawServer, transport: HTTP1Transport) throws {
        let first = try HTTP1Integration.send(transport, URLRequest(url: raw.url("/first"))).get()
        XCTAssertEqual(first.data, Data("ok".utf8))
        // The server closed the connection, and the transport pooled it (it did not know).
        XCTAssertTrue(raw.waitUntil { $0.closed == 1 })
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })

        let second = try HTTP1Integration.send(transport, URLRequest(url: raw.url("/second"))).get()

        XCTAssertEqual(second.data, Data("ok".utf8))
        XCTAssertEqual(isReused(second), false)
        let requests = raw.log.requests.map { "\($0.connection) \($0.target)" }
        XCTAssertEqual(requests, ["0 /first", "1 /second"], "the second request was seen once, on a new connection")
        XCTAssertEqual(raw.log.accepted, 2)
    }

    func testAPooledConnectionTheServerClosedWhileIdle_isNotUsed_theRequestGoesOnceOnANewConnection() throws {
        let raw = try serverClosingItsFirstConnectionWhenIdle(reset: false)
        try assertTheNextRequestGoesOnANewConnection(raw, transport: HTTP1Integration.transport())
    }

    func testAPooledConnectionTheServerResetWhileIdle_isNotUsed_theRequestGoesOnceOnANewConnection() throws {
        let raw = try serverClosingItsFirstConnectionWhenIdle(reset: true)
        try assertTheNextRequestGoesOnANewConnection(raw, transport: HTTP1Integration.transport())
    }

    // MARK: (b) the first write fails with nothing written

    // A real socket cannot be made to fail a write with nothing written on demand (a peer's
    // close is seen by the pool's check before the lease; a write after a peer's RST is
    // caught by the same check): these tests use byte streams in memory whose writes fail as
    // scripted.

    /// The transport on `connector`'s scripted streams.
    private func scriptedTransport(_ connector: HTTP1ScriptedConnector) -> HTTP1Transport {
        var configuration = HTTP1Transport.Configuration()
        configuration.cookieStorage = nil
        return HTTP1Transport(configuration: configuration, connector: connector, proxies: nil)
    }

    /// Sends a GET of `path` to the scripted host.
    private func send(_ transport: HTTP1Transport, _ path: String) -> Result<TransportResponse, Error> {
        HTTP1Integration.send(transport, URLRequest(url: URL(string: "http://scripted.test\(path)")!))
    }

    /// Sends `/first`, which must succeed, and waits for its connection to be idle in the pool.
    private func sendFirst(_ transport: HTTP1Transport) throws {
        XCTAssertEqual(try send(transport, "/first").get().data, Data("ok".utf8))
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
    }

    func testAReusedConnectionWhoseFirstWriteFailsWithNothingWritten_sendsTheRequestAgainOnceOnAFreshConnection()
        throws
    {
        let connector = HTTP1ScriptedConnector([[.answer, .fail(written: 0)], [.answer]])
        let transport = scriptedTransport(connector)
        try sendFirst(transport)

        let second = try send(transport, "/second").get()

        XCTAssertEqual(second.data, Data("ok".utf8))
        XCTAssertEqual(isReused(second), false, "it went on the fresh connection")
        XCTAssertEqual(connector.streams.count, 2)
        XCTAssertEqual(connector.streams[0].requestLines, ["GET /first HTTP/1.1"])
        XCTAssertEqual(connector.streams[0].failedWrites, ["GET /second HTTP/1.1"])
        XCTAssertTrue(connector.streams[0].isClosed, "the failed connection is closed, not pooled")
        XCTAssertEqual(connector.streams[1].requestLines, ["GET /second HTTP/1.1"])
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
    }

    func testAReusedConnectionWhoseFirstWriteFailsAfterSomeBytes_isNotSentAgain() throws {
        let connector = HTTP1ScriptedConnector([[.answer, .fail(written: 10)], [.answer]])
        let transport = scriptedTransport(connector)
        try sendFirst(transport)

        let result = send(transport, "/second")

        guard case .failure(LeashError.transport(let error)) = result else {
            return XCTFail("expected a transport error, got \(result)")
        }
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertEqual(connector.streams.count, 1, "no new connection: the request was not sent again")
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 0, busy: 0) })
    }

    func testAFreshConnectionWhoseFirstWriteFailsWithNothingWritten_isNotSentAgain() throws {
        let connector = HTTP1ScriptedConnector([[.fail(written: 0)], [.answer]])
        let transport = scriptedTransport(connector)

        let result = send(transport, "/first")

        guard case .failure(LeashError.transport(let error)) = result else {
            return XCTFail("expected a transport error, got \(result)")
        }
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertEqual(connector.streams.count, 1, "a new connection that fails is no stale one: not sent again")
    }

    func testARequestWhoseFreshConnectionAlsoFailsWithNothingWritten_isSentAgainOnlyOnce() throws {
        let connector = HTTP1ScriptedConnector([[.answer, .fail(written: 0)], [.fail(written: 0)], [.answer]])
        let transport = scriptedTransport(connector)
        try sendFirst(transport)

        let result = send(transport, "/second")

        guard case .failure(LeashError.transport(let error)) = result else {
            return XCTFail("expected a transport error, got \(result)")
        }
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertEqual(connector.streams.count, 2, "sent again once, not twice")
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 0, busy: 0) })
    }

    // MARK: (c) a request that left is never sent again

    func testARequestWhoseKeptAliveConnectionClosesAfterItWasWritten_isNotSentAgain() throws {
        let served = SpecLocked(0)
        server.route("GET", "/counted") { _ in
            served.withLock { $0 += 1 }
            return .text("counted")
        }
        let proxy = try FaultProxy(in: server, plan: .only(.close(after: 0, .response), connection: 0, request: 1))
        addTeardownBlock { proxy.stop() }
        let transport = HTTP1Integration.transport()
        XCTAssertNoThrow(
            try HTTP1Integration.send(transport, URLRequest(url: proxy.baseURL.appendingPathComponent("json"))).get())
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })

        let result = HTTP1Integration.send(transport, URLRequest(url: proxy.baseURL.appendingPathComponent("counted")))

        guard case .failure(LeashError.transport(let error)) = result else {
            return XCTFail("expected a transport error, got \(result)")
        }
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertTrue(error.localizedDescription.contains("was not sent again"), error.localizedDescription)
        XCTAssertEqual(served.value, 1, "the server saw it once")
        XCTAssertEqual(proxy.acceptedCount, 1, "no other connection was opened for it")
        XCTAssertEqual(proxy.sightings.filter { $0.target == "/counted" }.count, 1)
    }

    /// A server that reads one request per connection and ends the connection without an
    /// answer (`reset`: with a RST).
    private func assertAnUnansweredRequestIsNotSentAgain(reset: Bool) throws {
        let raw = try rawServer { connection in
            guard connection.readRequest() != nil else { return }
            reset ? connection.reset() : connection.close()
        }
        let transport = HTTP1Integration.transport()

        let result = HTTP1Integration.send(transport, URLRequest(url: raw.url("/unanswered")))

        guard case .failure(LeashError.transport(let error)) = result else {
            return XCTFail("expected a transport error, got \(result)")
        }
        XCTAssertEqual(error.code, .networkConnectionLost)
        XCTAssertTrue(error.localizedDescription.contains("was not sent again"), error.localizedDescription)
        XCTAssertEqual(raw.log.requests.map(\.target), ["/unanswered"])
        XCTAssertEqual(raw.log.accepted, 1)
    }

    func testARequestWhoseConnectionClosesBeforeAnyAnswer_isNotSentAgain() throws {
        try assertAnUnansweredRequestIsNotSentAgain(reset: false)
    }

    func testARequestWhoseConnectionIsResetBeforeAnyAnswer_isNotSentAgain() throws {
        try assertAnUnansweredRequestIsNotSentAgain(reset: true)
    }

    // MARK: (d) reuse

    func testTwentySequentialAwaitedRequests_shareOneConnection() async throws {
        let transport = HTTP1Integration.transport()
        let client = try makeClient { $0.transport(transport) }

        for index in 0..<20 {
            let value = try await client.execute(SpecEndpoint("/json"), serializer: DataResponseSerializer())
            XCTAssertEqual(value, Data(LoopbackServer.sampleJSON.utf8), "request \(index)")
        }

        XCTAssertEqual(server.requestCount, 20)
        XCTAssertEqual(
            server.connectionCount, 1, "connections of the requests: \(server.requestLog.map(\.connectionID))")
    }

    /// The Rx and callback forms report the answer before the connection goes back to the
    /// pool (so that a subscriber that sends and waits from its callback does not get a
    /// connection whose queue it holds): each request here starts once the previous one's
    /// connection is back, and then always reuses it.
    func testTwentySequentialRequests_eachAfterTheConnectionIsBack_shareOneConnection() throws {
        let transport = HTTP1Integration.transport()
        let client = try makeClient { $0.transport(transport) }

        for index in 0..<20 {
            let run = HTTP1Integration.run(client, SpecEndpoint("/json"), DataResponseSerializer())
            XCTAssertEqual(run.value, Data(LoopbackServer.sampleJSON.utf8), "request \(index)")
            XCTAssertTrue(
                HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) }, "request \(index)")
        }

        XCTAssertEqual(server.requestCount, 20)
        XCTAssertEqual(
            server.connectionCount, 1, "connections of the requests: \(server.requestLog.map(\.connectionID))")
    }

    /// Requests chained by callbacks, each sent from the previous one's completion (which runs
    /// on the connection's thread, the manager having no callback queue): the previous
    /// connection is done with (its response was read to the end) and should carry the next.
    func testTwentyRequestsEachSentFromThePreviousOnesCompletion_shareOneConnection() throws {
        let client = try makeClient { $0.transport(HTTP1Integration.transport()) }
        let chain = HTTP1CallbackChain(client: client, length: 20, done: expectation(description: "20 answers"))

        chain.next()
        wait(for: [chain.done], timeout: 10)

        XCTAssertEqual(chain.values, 20)
        XCTAssertEqual(server.requestCount, 20)
        XCTAssertEqual(
            server.connectionCount, 1, "connections of the requests: \(server.requestLog.map(\.connectionID))")
    }

    /// An execution's event stream hears of its end in place, on the connection's queue; the
    /// connection is back in the pool before, so the next execution, started as soon as the
    /// test thread hears, takes it.
    func testTwentySequentialEventStreams_shareOneConnection_withoutWaitingForThePool() throws {
        let client = try makeClient { $0.transport(HTTP1Integration.transport()) }

        for index in 0..<20 {
            let run = HTTP1Integration.run(client, SpecEndpoint("/json"), DataResponseSerializer())
            XCTAssertEqual(run.value, Data(LoopbackServer.sampleJSON.utf8), "request \(index)")
        }

        XCTAssertEqual(server.requestCount, 20)
        XCTAssertEqual(
            server.connectionCount, 1, "connections of the requests: \(server.requestLog.map(\.connectionID))")
    }

    /// A request made in an event stream's callback, which runs on the connection's queue,
    /// and waited for there, is not lent that connection (its answer would wait for the queue
    /// the callback holds): it goes on another, and the callback gets it.
    func testARequestMadeAndWaitedForOnTheConnectionsQueue_goesOnAnotherConnection() throws {
        let client = try makeClient { $0.transport(HTTP1Integration.transport()) }
        let inner = SpecLocked<Data?>(nil)
        let done = expectation(description: "the outer execution ended")
        let subscription = client.eventStream(SpecEndpoint("/json"), serializer: DataResponseSerializer())
            .subscribe(onCompleted: {
                let run = HTTP1Integration.run(client, SpecEndpoint("/json"), DataResponseSerializer(), timeout: 5)
                inner.withLock { $0 = run.value }
                done.fulfill()
            })
        wait(for: [done], timeout: 10)
        subscription.dispose()

        XCTAssertEqual(inner.value, Data(LoopbackServer.sampleJSON.utf8), "the inner request was answered")
        XCTAssertEqual(server.requestCount, 2)
        XCTAssertEqual(server.connectionCount, 2)
    }

    // MARK: (e) the per-host limit

    func testSixConcurrentRequestsWithTwoConnectionsPerHost_neverOpenMoreThanTwo_andAllSucceed() throws {
        let transport = HTTP1Integration.transport { $0.maximumConnectionsPerHost = 2 }
        let results = SpecLocked<[Result<TransportResponse, Error>]>([])
        let done = expectation(description: "six answers")
        done.expectedFulfillmentCount = 6
        let subscriptions = (0..<6).map { _ in
            transport.send(URLRequest(url: server.url(path: "/delay/150"))).subscribe(
                onNext: { response in results.withLock { $0.append(.success(response)) } },
                onError: { error in
                    results.withLock { $0.append(.failure(error)) }
                    done.fulfill()
                },
                onCompleted: { done.fulfill() })
        }
        defer { subscriptions.forEach { $0.dispose() } }
        // While the first two wait on the server, the other four wait in the pool.
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts.busy == 2 })

        wait(for: [done], timeout: 5)

        let answers = results.value
        XCTAssertEqual(answers.count, 6)
        for answer in answers {
            XCTAssertEqual(try answer.get().httpResponse.statusCode, 200)
        }
        XCTAssertEqual(server.requestCount, 6)
        XCTAssertEqual(server.connectionCount, 2, "more connections than the per-host limit")
        XCTAssertEqual(Set(server.requestLog.map(\.connectionID)).count, 2)
    }

    func testARequestDisposedWhileItWaitsForAPlace_neverReachesTheServer_andThePoolCountsComeBack() throws {
        let transport = HTTP1Integration.transport { $0.maximumConnectionsPerHost = 1 }
        let first = expectation(description: "the first answer")
        let holding = transport.send(URLRequest(url: server.url(path: "/delay/200"))).subscribe(
            onError: { XCTFail("\($0)") }, onCompleted: { first.fulfill() })
        defer { holding.dispose() }
        waitForServer("the first request") { $0.requestCount == 1 }
        let waiting = transport.send(URLRequest(url: server.url(path: "/echo/never"))).subscribe(
            onNext: { _ in XCTFail("a disposed request answered") }, onError: { XCTFail("\($0)") })
        XCTAssertEqual(transport.pool.counts.busy, 1, "the second request waits for the only place")

        waiting.dispose()
        wait(for: [first], timeout: 5)

        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
        let next = try HTTP1Integration.send(transport, URLRequest(url: server.url(path: "/json"))).get()
        XCTAssertEqual(next.data, Data(LoopbackServer.sampleJSON.utf8))
        XCTAssertEqual(server.requestLog.map(\.path), ["/delay/200", "/json"], "the disposed request was sent")
        XCTAssertEqual(server.connectionCount, 1)
    }

    // MARK: (f) the idle timeout

    func testAnIdleConnection_isClosedAfterTheIdleTimeout() throws {
        let transport = HTTP1Integration.transport { $0.idleConnectionTimeout = 0.2 }
        _ = try HTTP1Integration.send(transport, URLRequest(url: server.url(path: "/json"))).get()
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
        let idleSince = Date()

        XCTAssertTrue(HTTP1Integration.eventually(timeout: 2) { transport.pool.counts == (idle: 0, busy: 0) })

        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(idleSince), 0.15, "closed before the idle timeout")
        // The socket was really closed: the server sees its connection go.
        waitForServer("the idle connection closed") { $0.openConnectionCount == 0 }
        // The next request opens a new connection.
        _ = try HTTP1Integration.send(transport, URLRequest(url: server.url(path: "/json"))).get()
        XCTAssertEqual(server.connectionCount, 2)
    }

    /// A connection given back while the sweep waits for the pool's lock is younger than the
    /// sweep's clock: its age is 0, not a wrapped subtraction that closes it at once (which
    /// once sent the next request to a new connection, in CI).
    func testAConnectionPutIdleAfterTheSweepReadItsClock_isZeroSecondsOld() {
        XCTAssertEqual(HTTP1ConnectionPool.idleAge(since: 1_000, now: 400), 0)
        XCTAssertEqual(HTTP1ConnectionPool.idleAge(since: 400, now: 1_000), 600)
    }

    func testCloseIdleConnections_closesThePooledConnection() throws {
        let transport = HTTP1Integration.transport()
        _ = try HTTP1Integration.send(transport, URLRequest(url: server.url(path: "/json"))).get()
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })

        transport.closeIdleConnections()

        XCTAssertTrue(transport.pool.counts == (idle: 0, busy: 0))
        waitForServer("the idle connection closed") { $0.openConnectionCount == 0 }
    }
}

/// Sends `GET /json` `length` times, each from the completion of the one before.
private final class HTTP1CallbackChain: @unchecked Sendable {
    // @unchecked: `values` is behind `lock`; the rest is immutable.
    let client: Client
    let length: Int
    let done: XCTestExpectation
    private let lock = NSLock()
    private var answered = 0

    init(client: Client, length: Int, done: XCTestExpectation) {
        self.client = client
        self.length = length
        self.done = done
    }

    /// How many requests gave their value.
    var values: Int { lock.withLock { answered } }

    /// Sends the next request; its completion sends the one after, until `length`.
    func next() {
        client.execute(SpecEndpoint("/json"), serializer: DataResponseSerializer()) { [self] response in
            let count = lock.withLock { () -> Int in
                if response.value != nil { answered += 1 }
                return answered
            }
            if count < length && response.value != nil { next() } else { done.fulfill() }
        }
    }
}

// MARK: - Scripted byte streams

/// A connector whose streams answer in memory, each with its own script (see
/// `HTTP1ScriptedStream`); a connection beyond the scripts answers everything.
final class HTTP1ScriptedConnector: WebSocketByteStreamConnector, @unchecked Sendable {
    // @unchecked: `made` is behind `lock`.
    private let lock = NSLock()
    private var scripts: [[HTTP1ScriptedStream.Write]]
    private var made: [HTTP1ScriptedStream] = []

    /// A connector whose `i`th connection follows `scripts[i]`.
    init(_ scripts: [[HTTP1ScriptedStream.Write]]) {
        self.scripts = scripts
    }

    /// The streams opened so far, in order.
    var streams: [HTTP1ScriptedStream] { lock.withLock { made } }

    func connect(
        to address: WebSocketAddress,
        _ completion: @escaping @Sendable (Result<any WebSocketByteStream, URLError>) -> Void
    ) -> Disposable {
        let stream = lock.withLock { () -> HTTP1ScriptedStream in
            let stream = HTTP1ScriptedStream(script: scripts.isEmpty ? [] : scripts.removeFirst())
            made.append(stream)
            return stream
        }
        DispatchQueue.global().async { completion(.success(stream)) }
        return Disposables.create()
    }
}

/// A byte stream in memory that plays a server: each write (one request head, for a GET)
/// either is answered with a 2-byte kept-alive `200`, or fails having written a scripted
/// number of bytes. Completions run on a queue of its own, never inside the call.
final class HTTP1ScriptedStream: WebSocketByteStream, @unchecked Sendable {
    // @unchecked: every field is behind `lock`.

    /// What a write does.
    enum Write {
        /// It succeeds, and the request is answered.
        case answer
        /// It fails with `.networkConnectionLost` after `written` bytes.
        case fail(written: Int)
    }

    private let lock = NSLock()
    private let queue = DispatchQueue(label: "HTTP1ScriptedStream")
    private var script: [Write]
    private var inbox = Data()
    private var pendingReceive: (@Sendable (WebSocketByteStreamRead) -> Void)?
    private var closed = false
    private var answered: [String] = []
    private var failed: [String] = []

    init(script: [Write]) {
        self.script = script
    }

    /// The request lines of the requests answered.
    var requestLines: [String] { lock.withLock { answered } }
    /// The request lines of the writes that failed.
    var failedWrites: [String] { lock.withLock { failed } }
    /// Whether `close()` was called.
    var isClosed: Bool { lock.withLock { closed } }

    func send(_ bytes: Data, _ completion: @escaping @Sendable (URLError?) -> Void) {
        send(bytes, reportingWritten: { _, error in completion(error) })
    }

    func send(_ bytes: Data, reportingWritten completion: @escaping @Sendable (Int?, URLError?) -> Void) {
        let line = String(decoding: bytes.prefix { $0 != 13 }, as: UTF8.self)
        let (outcome, delivery) = lock.withLock { () -> ((Int?, URLError?), (@Sendable () -> Void)?) in
            if closed { return ((0, URLError(.cancelled)), nil) }
            switch script.isEmpty ? .answer : script.removeFirst() {
            case .fail(let written):
                failed.append(line)
                return ((written, URLError(.networkConnectionLost)), nil)
            case .answer:
                answered.append(line)
                inbox.append(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8))
                return ((bytes.count, nil), takeDelivery())
            }
        }
        queue.async {
            completion(outcome.0, outcome.1)
            delivery?()
        }
    }

    func receive(maximumLength: Int, _ completion: @escaping @Sendable (WebSocketByteStreamRead) -> Void) {
        let delivery = lock.withLock { () -> (@Sendable () -> Void)? in
            if closed { return { completion(.failed(URLError(.cancelled))) } }
            pendingReceive = completion
            return takeDelivery()
        }
        if let delivery { queue.async(execute: delivery) }
    }

    func close() {
        let pending = lock.withLock { () -> (@Sendable (WebSocketByteStreamRead) -> Void)? in
            closed = true
            defer { pendingReceive = nil }
            return pendingReceive
        }
        if let pending { queue.async { pending(.failed(URLError(.cancelled))) } }
    }

    var hasInputOrHangup: Bool { false }

    /// The delivery of the inbox to the waiting receive, if both are there (under `lock`).
    private func takeDelivery() -> (@Sendable () -> Void)? {
        guard let receive = pendingReceive, !inbox.isEmpty else { return nil }
        let bytes = inbox
        inbox = Data()
        pendingReceive = nil
        return { receive(.bytes(bytes)) }
    }
}
