import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Holds each request until the test lets it go on.
private final class GateInterceptor: ExecutionInterceptor, @unchecked Sendable {
    // @unchecked: `chains` is behind `lock`.
    private let lock = NSLock()
    private var chains: [InterceptorChain<Data>] = []
    private let arrived: XCTestExpectation

    init(arrived: XCTestExpectation) {
        self.arrived = arrived
    }

    func intercept(chain: InterceptorChain<Data>) {
        lock.withLock { chains.append(chain) }
        arrived.fulfill()
    }

    func openAll() {
        for chain in lock.withLock({ chains }) { chain.proceed() }
        lock.withLock { chains.removeAll() }
    }
}

final class LoopbackCancellationTests: LoopbackIntegrationCase {
    // MARK: Timeouts

    func testTimeout_hangingServer_isLeashTimeoutAfterAboutTheTimeout() throws {
        // URLSession's own sub-second timeouts fire at once on Linux (Docs/URLSession-on-Linux.md):
        // this must be Leash's timer, firing at 0.3 s, not at once and not at 1 s.
        let client = try makeClient { $0.timeout(0.3) }
        let start = Date()
        let response = try outcome(client, SpecEndpoint("/hang"), DataResponseSerializer())
        let elapsed = Date().timeIntervalSince(start)
        guard case .timeout(let seconds) = response.error as? LeashError else {
            return XCTFail("expected LeashError.timeout, got \(response)")
        }
        XCTAssertEqual(seconds, 0.3)
        XCTAssertGreaterThanOrEqual(elapsed, 0.29, "fired early")
        // `LeashError.timeout` (not a URLError) already shows it is Leash's timer; the upper
        // bound only says it did not hang, loosely, so that a loaded CI machine cannot flake it.
        XCTAssertLessThan(elapsed, 5, "fired late")
        XCTAssertEqual((response.error as? LeashError)?.description, "No response within 0.3 s.")
        waitForServer("the client closing the hanging request") { $0.clientDisconnectCount >= 1 }
    }

    func testTimeout_callbackForm_hangingServer_endsWithTimeoutAndClosesTheConnection() throws {
        let client = try makeClient { $0.timeout(0.3) }
        let done = expectation(description: "timed out")
        let start = Date()
        client.execute(SpecEndpoint("/hang")) { (response: Response<Data>) in
            XCTAssertEqual((response.error as? LeashError)?.description, "No response within 0.3 s.")
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.29, "fired early")
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        waitForServer("the client closing the hanging request") { $0.clientDisconnectCount >= 1 }
    }

    func testTimeout_asyncForm_hangingServer_throwsTimeout() async throws {
        let client = try makeClient { $0.timeout(0.3) }
        do {
            _ = try await client.execute(SpecEndpoint("/hang"), as: LoopbackSample.self)
            XCTFail("expected a timeout")
        } catch LeashError.timeout(let seconds) {
            XCTAssertEqual(seconds, 0.3)
        }
    }

    func testTimeout_endpointOverridesTheManager() throws {
        let client = try makeClient()
        let start = Date()
        let response = try outcome(client, SpecEndpoint("/hang", timeout: 0.2), DataResponseSerializer())
        guard case .timeout(let seconds) = response.error as? LeashError else {
            return XCTFail("expected LeashError.timeout, got \(response)")
        }
        XCTAssertEqual(seconds, 0.2)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.19, "fired early")
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "did not fire")
        waitForServer("the client closing the hanging request") { $0.clientDisconnectCount >= 1 }
    }

    func testTimeout_fastResponse_isNotAffected() throws {
        let client = try makeClient { $0.timeout(0.5) }
        let response = try outcome(client, SpecEndpoint("/delay/50"), DataResponseSerializer())
        XCTAssertEqual(response.statusCode, 200)
    }

    // MARK: Cancelling

    func testDispose_executionOnHang_closesTheConnection() throws {
        let client = try makeClient()
        let events = SpecLocked<[String]>([])
        let subscription = client.eventStream(SpecEndpoint("/hang"), serializer: DataResponseSerializer())
            .subscribe(
                onNext: { event in events.withLock { $0.append("\(event)") } },
                onError: { error in events.withLock { $0.append("error \(error)") } },
                onCompleted: { events.withLock { $0.append("completed") } })
        waitForServer("the request") { $0.requestCount >= 1 }
        let sentSoFar = events.value
        subscription.dispose()
        waitForServer("the client disconnecting") { $0.clientDisconnectCount >= 1 }
        XCTAssertEqual(events.value, sentSoFar, "nothing after dispose, in particular no cancellation error")
        XCTAssertFalse(sentSoFar.contains { $0.hasPrefix("error") || $0 == "completed" })
    }

    func testCancel_dataRequestOnHang_closesTheConnectionAndNeverCallsBack() throws {
        let client = try makeClient()
        let called = expectation(description: "completion called")
        called.isInverted = true
        let request = client.execute(SpecEndpoint("/hang"), serializer: DataResponseSerializer()) { _ in
            called.fulfill()
        }
        waitForServer("the request") { $0.requestCount >= 1 }
        request.cancel()
        XCTAssertTrue(request.isCancelled)
        waitForServer("the client disconnecting") { $0.clientDisconnectCount >= 1 }
        wait(for: [called], timeout: 0.3)
    }

    func testCancel_taskOfAsyncExecuteOnHang_throwsCancelledAndClosesTheConnection() async throws {
        let client = try makeClient()
        let server = self.server!
        let task = Task {
            try await client.execute(SpecEndpoint("/hang"), serializer: DataResponseSerializer())
        }
        let arrived = await Task.detached { server.waitUntil(timeout: 5) { $0.requestCount >= 1 } }.value
        XCTAssertTrue(arrived)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected an error")
        } catch LeashError.cancelled {
            // What an `await execute` throws when its task is cancelled.
        } catch {
            XCTFail("expected LeashError.cancelled, got \(error)")
        }
        let disconnected = await Task.detached { server.waitUntil(timeout: 5) { $0.clientDisconnectCount >= 1 } }
            .value
        XCTAssertTrue(disconnected, "counters \(server.counters)")
    }

    // MARK: Never sent

    func testAlreadyCancelledTask_neverReachesTheServer() async throws {
        // Docs/URLSession-on-Linux.md: with data(for:), 6-18 of 50 such requests still reached the server.
        let client = try makeClient()
        let outcomes = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var outcomes: [String] = []
            for _ in 0..<50 {
                do {
                    _ = try await client.execute(SpecEndpoint("/json"), serializer: DataResponseSerializer())
                    outcomes.append("value")
                } catch LeashError.cancelled {
                    outcomes.append("cancelled")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            return outcomes
        }.value
        XCTAssertEqual(outcomes, Array(repeating: "cancelled", count: 50))
        // A request made afterwards has been answered, so any stray one would have arrived.
        _ = try await client.execute(SpecEndpoint("/json"), serializer: DataResponseSerializer())
        XCTAssertEqual(server.requestCount, 1)
    }

    func testDisposeBeforeTheRequestStarts_neverReachesTheServer() throws {
        let arrived = expectation(description: "held by the interceptor")
        let gate = GateInterceptor(arrived: arrived)
        let client = try makeClient { $0.add(interceptor: gate) }
        let subscription = client.eventStream(SpecEndpoint("/json"), serializer: DataResponseSerializer()).subscribe()
        wait(for: [arrived], timeout: 5)
        subscription.dispose()
        gate.openAll()
        // A request made afterwards has been answered, so the disposed one, had it gone,
        // would have arrived first.
        let later = try outcome(try makeClient(), SpecEndpoint("/json"), DataResponseSerializer())
        XCTAssertEqual(later.statusCode, 200)
        XCTAssertEqual(server.requestCount, 1)
    }

    // MARK: The transport on its own

    func testTransport_send_emitsOneResponseAndCompletes() throws {
        let transport = URLSessionTransport()
        let responses = try transport.send(URLRequest(url: server.url(path: "/json"))).toBlocking(timeout: 10).toArray()
        XCTAssertEqual(responses.count, 1)
        XCTAssertEqual(responses.first?.httpResponse.statusCode, 200)
        XCTAssertEqual(responses.first?.data, Data(LoopbackServer.sampleJSON.utf8))
    }

    func testTransport_dispose_cancelsTheTask() throws {
        let transport = URLSessionTransport()
        let received = SpecLocked(0)
        let subscription = transport.send(URLRequest(url: server.url(path: "/hang")))
            .subscribe(onNext: { _ in received.withLock { $0 += 1 } }, onError: { _ in received.withLock { $0 += 1 } })
        waitForServer("the request") { $0.requestCount >= 1 }
        subscription.dispose()
        waitForServer("the client disconnecting") { $0.clientDisconnectCount >= 1 }
        XCTAssertEqual(received.value, 0)
    }

    func testTransport_disposingAnotherRequestInsideACompletion_neitherDeadlocksNorCrashes() throws {
        // A `flatMapLatest` disposes the previous request from inside the next one's
        // callback: `cancel()` must not run synchronously inside URLSession's callbacks.
        let transport = URLSessionTransport()
        let hanging = transport.send(URLRequest(url: server.url(path: "/hang"))).subscribe()
        waitForServer("the hanging request") { $0.requestCount >= 1 }
        let done = expectation(description: "second request completed")
        let second = transport.send(URLRequest(url: server.url(path: "/json")))
            .subscribe(onNext: { _ in hanging.dispose() }, onCompleted: { done.fulfill() })
        wait(for: [done], timeout: 10)
        waitForServer("the hanging request closed") { $0.clientDisconnectCount >= 1 }
        second.dispose()
        // The session still works.
        XCTAssertEqual(
            try transport.send(URLRequest(url: server.url(path: "/json"))).toBlocking(timeout: 10).single()
                .httpResponse.statusCode, 200)
    }

    func testTransport_hasNoURLCache_andLeavesTheCallersConfigurationAlone() {
        let configuration = URLSessionConfiguration.ephemeral
        let cache = URLCache(memoryCapacity: 1024, diskCapacity: 0, diskPath: nil)
        configuration.urlCache = cache
        let transport = URLSessionTransport(configuration: configuration)
        XCTAssertNil(transport.configuration.urlCache, "a cancel racing a completion crashes a cached session")
        XCTAssertTrue(configuration.urlCache === cache)
        XCTAssertNil(URLSessionTransport.shared.configuration.urlCache)
    }

    func testTransport_freedWhileItsObservableLives_stillSendsAndIsFreedAfterwards() throws {
        // A task on an invalidated session is a fatal error: the observable must keep the
        // transport (and so its session) alive until it is gone.
        weak var weakTransport: URLSessionTransport?
        var observable: Observable<TransportResponse>?
        do {
            let transport = URLSessionTransport()
            weakTransport = transport
            observable = transport.send(URLRequest(url: server.url(path: "/json")))
        }
        XCTAssertNotNil(weakTransport, "held by the observable")
        let response = try XCTUnwrap(observable).toBlocking(timeout: 10).single()
        XCTAssertEqual(response.httpResponse.statusCode, 200)
        observable = nil
        XCTAssertNil(weakTransport, "freed with the last observable")
    }
}
