import Dispatch
import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `SharingTransport` over a stub transport in virtual time (answers take 5 ticks), and
/// under many threads at once.
final class SharingTransportTests: RetryTestCase {
    private var scheduler: TestScheduler!
    private var stub: StubTransport!
    private var counting: SharingCountingTransport!
    private var sharing: SharingTransport!
    /// The subscriptions a test made, by name, to dispose them at chosen ticks.
    private var subscriptions: [String: Disposable] = [:]

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0)
        stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/items", .json("[1]", delay: 5), .json("[2]", delay: 5))
        counting = SharingCountingTransport(stub)
        sharing = SharingTransport(wrapping: counting)
    }

    override func tearDown() {
        subscriptions.values.forEach { $0.dispose() }
        subscriptions = [:]
        scheduler = nil
        stub = nil
        counting = nil
        sharing = nil
        super.tearDown()
    }

    private func request(
        _ path: String = "/items", method: String = "GET", headers: [String: String] = [:]
    ) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com" + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// Subscribes `observer` to `request` at `time`, as `name`.
    private func send(
        _ request: URLRequest, at time: TestTime, as name: String, to observer: TestableObserver<TransportResponse>
    ) {
        scheduler.scheduleAt(time) { [self] in subscriptions[name] = sharing.send(request).subscribe(observer) }
    }

    private func dispose(_ name: String, at time: TestTime) {
        scheduler.scheduleAt(time) { [self] in subscriptions[name]?.dispose() }
    }

    private func timeline(_ observer: TestableObserver<TransportResponse>) -> [String] {
        observer.events.map { recorded in
            switch recorded.value {
            case .next(let response):
                return
                    "\(response.httpResponse.statusCode) \(String(decoding: response.data, as: UTF8.self)) @ \(recorded.time)"
            case .error(let error): return "error(\(retryErrorName(error))) @ \(recorded.time)"
            case .completed: return "completed @ \(recorded.time)"
            }
        }
    }

    // MARK: Sharing

    func testSharing_identicalGETsInFlightTogether_shareOneRequest() {
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(), at: 200, as: "first", to: first)
        send(request(), at: 202, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 1)
        XCTAssertEqual(timeline(first), ["200 [1] @ 205", "completed @ 205"])
        XCTAssertEqual(timeline(second), ["200 [1] @ 205", "completed @ 205"])
        XCTAssertEqual(sharing.inFlightCount, 0)
    }

    func testSharing_afterTheAnswer_theNextIdenticalRequestGoesToTheNetworkAgain() {
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(), at: 200, as: "first", to: first)
        send(request(), at: 210, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 2, "nothing is cached")
        XCTAssertEqual(timeline(first), ["200 [1] @ 205", "completed @ 205"])
        XCTAssertEqual(timeline(second), ["200 [2] @ 215", "completed @ 215"])
    }

    func testSharing_joiningAtTheTickOfTheAnswerButBeforeIt_sharesIt() {
        // Same-tick work runs in scheduling order: the second subscription (scheduled
        // before the run) comes before the answer (scheduled at 200 for 205).
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(), at: 200, as: "first", to: first)
        send(request(), at: 205, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(timeline(first), ["200 [1] @ 205", "completed @ 205"])
        XCTAssertEqual(timeline(second), ["200 [1] @ 205", "completed @ 205"])
        XCTAssertEqual(counting.sendCount, 1)
    }

    func testSharing_aFailureReachesEverySubscriber() {
        stub.stub(path: "/down", .error(.timedOut, delay: 5))
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request("/down"), at: 200, as: "first", to: first)
        send(request("/down"), at: 203, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 1)
        let failure = "error(transport \(URLError.Code.timedOut.rawValue)) @ 205"
        XCTAssertEqual(timeline(first), [failure])
        XCTAssertEqual(timeline(second), [failure])
    }

    func testSharing_synchronousAnswer_reachesTheSubscriberAndLeavesNothingInFlight() {
        stub.stub(path: "/now", .json("[0]"))
        let observer = scheduler.createObserver(TransportResponse.self)
        send(request("/now"), at: 200, as: "only", to: observer)

        scheduler.start()

        XCTAssertEqual(timeline(observer), ["200 [0] @ 200", "completed @ 200"])
        XCTAssertEqual(sharing.inFlightCount, 0)
        XCTAssertEqual(counting.disposeCount, 1)
    }

    // MARK: Cancelling

    func testSharing_disposingOneOfTwo_theOtherStillGetsTheAnswer() {
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(), at: 200, as: "first", to: first)
        send(request(), at: 201, as: "second", to: second)
        dispose("first", at: 203)
        let cancelledAt204 = SpecLocked(-1)
        scheduler.scheduleAt(204) { [counting] in cancelledAt204.withLock { $0 = counting!.disposeCount } }

        scheduler.start()

        XCTAssertEqual(cancelledAt204.value, 0, "the request kept going for the second subscriber")
        XCTAssertEqual(timeline(first), [])
        XCTAssertEqual(timeline(second), ["200 [1] @ 205", "completed @ 205"])
        XCTAssertEqual(counting.sendCount, 1)
    }

    func testSharing_disposingEverySubscriber_cancelsTheRequest() {
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(), at: 200, as: "first", to: first)
        send(request(), at: 201, as: "second", to: second)
        dispose("first", at: 202)
        dispose("second", at: 203)
        let state = SpecLocked<[Int]>([])
        scheduler.scheduleAt(203) { [counting, sharing] in
            state.withLock { $0 = [counting!.disposeCount, sharing!.inFlightCount] }
        }

        scheduler.start()

        XCTAssertEqual(state.value, [1, 0], "the last dispose cancelled the request")
        XCTAssertEqual(timeline(first), [])
        XCTAssertEqual(timeline(second), [], "the cancelled answer is never delivered")
    }

    func testSharing_afterACancel_anIdenticalRequestStartsAnew() {
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(), at: 200, as: "first", to: first)
        dispose("first", at: 202)
        send(request(), at: 203, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 2)
        XCTAssertEqual(timeline(second), ["200 [2] @ 208", "completed @ 208"])
    }

    // MARK: What is shared

    func testSharing_differentURLs_areNotShared() {
        stub.stub(path: "/other", .json("[9]", delay: 5))
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        let third = scheduler.createObserver(TransportResponse.self)
        send(request("/items"), at: 200, as: "first", to: first)
        send(request("/other"), at: 201, as: "second", to: second)
        send(request("/items?page=2"), at: 202, as: "third", to: third)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 3)
        XCTAssertEqual(timeline(second), ["200 [9] @ 206", "completed @ 206"])
    }

    func testSharing_differentHeaderValues_areNotShared() {
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(headers: ["Authorization": "Bearer a"]), at: 200, as: "first", to: first)
        send(request(headers: ["Authorization": "Bearer b"]), at: 201, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 2)
        XCTAssertEqual(timeline(first), ["200 [1] @ 205", "completed @ 205"])
        XCTAssertEqual(timeline(second), ["200 [2] @ 206", "completed @ 206"])
    }

    func testSharing_headerNamesDifferingOnlyInCase_areShared() {
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(request(headers: ["Accept": "application/json"]), at: 200, as: "first", to: first)
        send(request(headers: ["accept": "application/json"]), at: 201, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 1)
        XCTAssertEqual(timeline(second), ["200 [1] @ 205", "completed @ 205"])
    }

    func testSharing_otherMethods_areNeverShared() {
        for method in ["POST", "PUT", "DELETE", "PATCH", "HEAD"] {
            let scheduler = TestScheduler(initialClock: 0)
            let stub = StubTransport(scheduler: scheduler)
            stub.stub(path: "/items", .json("[1]", delay: 5))
            let counting = SharingCountingTransport(stub)
            let sharing = SharingTransport(wrapping: counting)
            let observer = scheduler.createObserver(TransportResponse.self)
            var request = self.request()
            request.httpMethod = method
            var bag: [Disposable] = []
            scheduler.scheduleAt(200) { bag.append(sharing.send(request).subscribe(observer)) }
            scheduler.scheduleAt(201) { bag.append(sharing.send(request).subscribe(observer)) }

            scheduler.start()

            XCTAssertEqual(counting.sendCount, 2, method)
            XCTAssertEqual(observer.events.filter { $0.value.isCompleted }.count, 2, method)
            XCTAssertEqual(sharing.inFlightCount, 0, "\(method) is never tracked")
            bag.forEach { $0.dispose() }
        }
    }

    func testSharing_getWithABody_isNotShared() {
        var withBody = request()
        withBody.httpBody = Data("{}".utf8)
        let first = scheduler.createObserver(TransportResponse.self)
        let second = scheduler.createObserver(TransportResponse.self)
        send(withBody, at: 200, as: "first", to: first)
        send(withBody, at: 201, as: "second", to: second)

        scheduler.start()

        XCTAssertEqual(counting.sendCount, 2)
    }

    // MARK: Through a client

    func testSharing_throughAClient_twoExecutionsShareOneRequestAndEachDecodes() throws {
        let client = try makeRetryClient(sharing, scheduler: scheduler)
        let first = scheduler.createObserver(ExecutionEvent<[Int]>.self)
        let second = scheduler.createObserver(ExecutionEvent<[Int]>.self)
        scheduler.scheduleAt(200) { [self] in
            subscriptions["first"] = client.eventStream(RetryEndpoint(), as: [Int].self).subscribe(first)
        }
        scheduler.scheduleAt(203) { [self] in
            subscriptions["second"] = client.eventStream(RetryEndpoint(), as: [Int].self).subscribe(second)
        }

        scheduler.start()

        XCTAssertEqual(stub.requests.count, 1)
        for observer in [first, second] {
            XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [[1]])
            XCTAssertEqual(observer.events.last.map { $0.time }, 205)
            XCTAssertEqual(observer.events.last?.value.isCompleted, true)
        }
    }

    func testSharing_withRetry_eachRetryJoinsOrStartsAFlight() throws {
        stub.stub(path: "/flaky", .status(503, delay: 5), .json("[3]", delay: 5))
        let retry = RetryInterceptor(policy: exactRetryPolicy(baseDelay: 1))
        let client = try makeRetryClient(sharing, scheduler: scheduler, interceptors: [retry])
        let first = scheduler.createObserver(ExecutionEvent<[Int]>.self)
        let second = scheduler.createObserver(ExecutionEvent<[Int]>.self)
        let endpoint = RetryEndpoint(path: "/flaky")
        scheduler.scheduleAt(200) { [self] in
            subscriptions["first"] = client.eventStream(endpoint, as: [Int].self).subscribe(first)
        }
        scheduler.scheduleAt(201) { [self] in
            subscriptions["second"] = client.eventStream(endpoint, as: [Int].self).subscribe(second)
        }

        scheduler.start()

        // Both see the shared 503 at 205, both retry at 206 and share the second request.
        XCTAssertEqual(stub.requests.count, 2)
        for observer in [first, second] {
            XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [[3]])
            XCTAssertEqual(observer.events.last.map { $0.time }, 211)
        }
    }

    // MARK: Threads

    func testSharing_manyThreadsSubscribingAndDisposing_everyKeptSubscriberGetsTheAnswer() {
        let stub = StubTransport()
        stub.stub(path: "/items", .json("[1]", delay: 0.05))
        let counting = SharingCountingTransport(stub)
        let sharing = SharingTransport(wrapping: counting)
        let request = SharingRequestBox(self.request())
        let kept = 64
        let answered = expectation(description: "every kept subscriber answered")
        answered.expectedFulfillmentCount = kept
        let bodies = SpecLocked<[String]>([])
        let subscriptions = SpecLocked<[Disposable]>([])

        DispatchQueue.concurrentPerform(iterations: kept * 2) { index in
            let subscription = sharing.send(request.request).subscribe(
                onNext: { response in bodies.withLock { $0.append(String(decoding: response.data, as: UTF8.self)) } },
                onError: { XCTFail("unexpected \($0)") },
                onCompleted: { answered.fulfill() })
            // Every other subscriber leaves at once, racing the others' joins.
            if index.isMultiple(of: 2) {
                subscription.dispose()
            } else {
                subscriptions.withLock { $0.append(subscription) }
            }
        }
        wait(for: [answered], timeout: 10)

        XCTAssertEqual(bodies.value.filter { $0 == "[1]" }.count, kept, "only kept subscribers, each once")
        XCTAssertLessThan(counting.sendCount, kept, "requests in flight together were shared")
        waitForSharing("every underlying request ended") { counting.disposeCount == counting.sendCount }
        XCTAssertEqual(sharing.inFlightCount, 0)
        subscriptions.value.forEach { $0.dispose() }
    }

    func testSharing_manyThreadsDisposingEverySubscriber_cancelsEveryRequest() {
        let stub = StubTransport()
        stub.stub(path: "/items", .json("[1]", delay: 30))
        let counting = SharingCountingTransport(stub)
        let sharing = SharingTransport(wrapping: counting)
        let request = SharingRequestBox(self.request())
        let subscriptions = SpecLocked<[Disposable]>([])
        let delivered = SpecLocked(0)

        DispatchQueue.concurrentPerform(iterations: 100) { _ in
            let subscription = sharing.send(request.request).subscribe { _ in delivered.withLock { $0 += 1 } }
            subscriptions.withLock { $0.append(subscription) }
        }
        XCTAssertEqual(counting.sendCount, 1, "all joined the one flight")
        DispatchQueue.concurrentPerform(iterations: 100) { index in
            subscriptions.value[index].dispose()
        }

        XCTAssertEqual(counting.disposeCount, 1, "the last dispose cancelled it")
        XCTAssertEqual(sharing.inFlightCount, 0)
        XCTAssertEqual(delivered.value, 0)
    }

    private func waitForSharing(
        _ description: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
    ) {
        let deadline = Date(timeIntervalSinceNow: 5)
        while !condition() && Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.002))
        }
        XCTAssertTrue(condition(), "timed out waiting for \(description)", file: file, line: line)
    }
}

/// A request handed to other threads.
private struct SharingRequestBox: @unchecked Sendable {
    // @unchecked: `URLRequest` is an immutable value here.
    let request: URLRequest
    init(_ request: URLRequest) { self.request = request }
}
