import Dispatch
import Foundation
import LeashTestSupport
import LeashTesting
import LoopbackServer
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The manager's request limits keep requests beyond them out of URLSession, so that an
/// execution that ends never sends its request afterwards. (Queued inside URLSession, a
/// request cancelled by `cancelAll()` reached the server anyway when a connection freed
/// up: in 2 runs of 3 of ten requests to a hanging route.)
final class RequestLimitsLoopbackTests: LoopbackIntegrationCase {
    /// The header naming each request's execution.
    private static let idHeader = "X-Execution"

    /// The executions whose request reached the server, by id.
    private func arrivedIDs() -> Set<String> {
        Set(server.requestLog.compactMap { $0.headers[Self.idHeader] })
    }

    /// Waits until every connection the client opened is closed (after all executions
    /// ended, nothing more may arrive). `HTTP1Transport` may keep a connection that carried
    /// no request (it was opened for a request disposed meanwhile): idle, it sends nothing,
    /// and it is closed here first.
    private func waitForConnectionsClosed() {
        (Manager.defaultTransport as? HTTP1Transport)?.closeIdleConnections()
        waitForServer("every connection closed") { $0.openConnectionCount == 0 }
    }

    func testCancelAll_requestsWaitingForAPlace_neverReachTheServer() throws {
        for round in 0..<3 {
            server.resetCounters()
            let client = try makeClient()
            let limit = try XCTUnwrap(client.manager.maximumRequestsPerHost)
            XCTAssertEqual(limit, URLSessionConfiguration.default.httpMaximumConnectionsPerHost)
            let count = limit + 4
            let ended = expectation(description: "every execution ended, round \(round)")
            ended.expectedFulfillmentCount = count
            let errors = SpecLocked<[String]>([])
            let bag = DisposeBag()
            for index in 0..<count {
                client.eventStream(
                    SpecEndpoint("/hang", headers: [Self.idHeader: "\(round)-\(index)"]),
                    serializer: DataResponseSerializer()
                )
                .subscribe(onError: { error in
                    errors.withLock { $0.append("\(error)") }
                    ended.fulfill()
                })
                .disposed(by: bag)
            }
            waitForServer("the first \(limit)") { $0.requestCount >= limit }
            let counts = try XCTUnwrap(client.manager.dispatcher).counts
            XCTAssertEqual(counts.running, limit)
            XCTAssertEqual(counts.waiting, count - limit)

            client.manager.cancelAll()
            wait(for: [ended], timeout: 10)
            waitForConnectionsClosed()

            XCTAssertEqual(errors.value, Array(repeating: "\(LeashError.cancelled)", count: count))
            XCTAssertEqual(server.requestCount, limit, "no request that waited was sent after cancelAll")
        }
    }

    func testLimits_areTheBuildersAndHoldAtTheServer() throws {
        let client = try makeClient { $0.maximumRequests(perHost: 2, total: 3) }
        XCTAssertEqual(client.manager.maximumRequestsPerHost, 2)
        XCTAssertEqual(client.manager.maximumRequests, 3)
        let bag = DisposeBag()
        for index in 0..<5 {
            client.eventStream(
                SpecEndpoint("/hang", headers: [Self.idHeader: "\(index)"]), serializer: DataResponseSerializer()
            )
            .subscribe()
            .disposed(by: bag)
        }
        waitForServer("two requests") { $0.requestCount >= 2 }
        XCTAssertEqual(try XCTUnwrap(client.manager.dispatcher).counts.waiting, 3)
        XCTAssertEqual(arrivedIDs(), ["0", "1"], "in the order they came")
    }

    func testARedirectsNextHop_isNeverSentAfterTheExecutionEnded() throws {
        // The first hop answers a moment after the execution was cancelled: the hop it
        // points to must not go out.
        var redirect = LoopbackResponse(status: 302, headers: ["Location": "/hop-target"])
        redirect.delay = 0.3
        server.route("GET", "/hop", response: redirect)
        server.route("GET", "/hop-target", response: .json(Data("{}".utf8)))
        let client = try makeClient()
        let ended = expectation(description: "cancelled")
        let subscription = client.eventStream(SpecEndpoint("/hop"), serializer: DataResponseSerializer())
            .subscribe(onError: { _ in ended.fulfill() })
        waitForServer("the first hop") { $0.requestCount == 1 }
        client.manager.cancelAll()
        wait(for: [ended], timeout: 5)
        waitForConnectionsClosed()
        XCTAssertEqual(server.requestLog.map(\.path), ["/hop"])
        subscription.dispose()
    }

    func testTransportsOtherThanURLSession_haveNoLimitUnlessAsked() throws {
        let stub = StubTransport()
        XCTAssertNil(try makeClient { $0.transport(stub) }.manager.maximumRequestsPerHost)
        XCTAssertNil(try makeClient { $0.transport(stub) }.manager.dispatcher)
        XCTAssertEqual(
            try makeClient { $0.transport(stub).maximumRequests(perHost: 4) }.manager.maximumRequestsPerHost, 4)
    }

    /// What the stress test saw of each execution, in one order: whether it went to the
    /// transport (`requestSent`) before it ended.
    private final class SendLog: @unchecked Sendable {
        private let lock = NSLock()
        private var sent: Set<Int> = []
        private var endedUnsent: Set<Int> = []
        private var ended: Set<Int> = []

        func sent(_ index: Int) { lock.withLock { _ = sent.insert(index) } }

        /// Records the end; returns whether it is the first.
        func ended(_ index: Int) -> Bool {
            lock.withLock {
                guard ended.insert(index).inserted else { return false }
                if !sent.contains(index) { endedUnsent.insert(index) }
                return true
            }
        }

        var unsentAtTheirEnd: Set<Int> { lock.withLock { endedUnsent } }
        var endedCount: Int { lock.withLock { ended.count } }
    }

    /// 200 executions against a hanging route, many of them queued behind the limit;
    /// random disposes from several threads racing the places that free up, then
    /// `cancelAll()`. No execution that ended before its request went to the transport
    /// (`requestSent`, now reported when the request leaves the manager's queue) has its
    /// request reach the server, in 20 runs.
    func testStress_randomCancelsAndCancelAll_noRequestReachesTheServerAfterItsExecutionEnded() throws {
        let count = 200
        var violations = 0
        var unsentTotal = 0
        for run in 0..<20 {
            server.resetCounters()
            let client = try makeClient()
            let log = SendLog()
            let ended = expectation(description: "run \(run): every execution ended")
            ended.expectedFulfillmentCount = count
            let subscriptions = SpecLocked<[Int: Disposable]>([:])
            for index in 0..<count {
                let subscription = client.eventStream(
                    SpecEndpoint("/hang", headers: [Self.idHeader: "\(index)"]), serializer: DataResponseSerializer()
                )
                .subscribe(
                    onNext: { event in
                        if case .requestSent = event { log.sent(index) }
                    },
                    onError: { _ in
                        if log.ended(index) { ended.fulfill() }
                    })
                subscriptions.withLock { $0[index] = subscription }
            }
            waitForServer("the first requests") { $0.requestCount >= 1 }
            // Random disposes from four threads at once, while places free up and queued
            // requests start.
            let disposals = Int.random(in: 20...120)
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<(disposals / 4) {
                    let index = Int.random(in: 0..<count)
                    guard let subscription = subscriptions.withLock({ $0.removeValue(forKey: index) }) else { continue }
                    subscription.dispose()
                    // Recorded after the dispose returned: from then on nothing is sent.
                    if log.ended(index) { ended.fulfill() }
                }
            }
            client.manager.cancelAll()
            wait(for: [ended], timeout: 20)
            waitForConnectionsClosed()

            let arrived = Set(arrivedIDs().compactMap(Int.init))
            let late = arrived.intersection(log.unsentAtTheirEnd)
            violations += late.count
            unsentTotal += log.unsentAtTheirEnd.count
            XCTAssertEqual(late, [], "run \(run): requests sent after their execution ended")
            XCTAssertEqual(log.endedCount, count)
            XCTAssertEqual(try XCTUnwrap(client.manager.dispatcher).counts.waiting, 0)
            subscriptions.withLock { $0.removeAll() }
        }
        print(
            "request-limits stress: \(violations) requests reached the server after their execution ended;"
                + " \(unsentTotal) executions ended while waiting for a place, in 20 runs of \(count)")
    }
}
