import Dispatch
import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `SharingTransport` over `URLSessionTransport` against a real server on 127.0.0.1.
final class SharingLoopbackTests: LoopbackIntegrationCase {
    private var sharing: SharingTransport!
    private var client: Client!

    override func setUpWithError() throws {
        try super.setUpWithError()
        sharing = SharingTransport(wrapping: URLSessionTransport())
        client = try makeClient { [sharing] in $0.transport(sharing!) }
    }

    override func tearDown() {
        client = nil
        sharing = nil
        super.tearDown()
    }

    /// Executions started together, from several threads, recording what they get.
    private final class Executions: @unchecked Sendable {
        // @unchecked: the lists are behind the `SpecLocked` boxes; `finished` is thread-safe.
        let bodies = SpecLocked<[String]>([])
        let errors = SpecLocked<[String]>([])
        let subscriptions = SpecLocked<[Int: Disposable]>([:])
        let finished: XCTestExpectation

        init(_ finished: XCTestExpectation) { self.finished = finished }

        func start(_ count: Int, client: Client, endpoint: @escaping @Sendable (Int) -> Endpoint) {
            DispatchQueue.concurrentPerform(iterations: count) { index in
                let subscription = client.eventStream(endpoint(index), serializer: StringResponseSerializer())
                    .subscribe(
                        onNext: { [self] event in
                            if let body = event.value { bodies.withLock { $0.append(body) } }
                        },
                        onError: { [self] error in
                            errors.withLock { $0.append("\(error)") }
                            finished.fulfill()
                        },
                        onCompleted: { [finished] in finished.fulfill() })
                subscriptions.withLock { $0[index] = subscription }
            }
        }

        /// Disposes the executions `indices` and lets go of them (their handlers capture
        /// this object).
        func dispose(_ indices: some Sequence<Int>) {
            for index in indices {
                subscriptions.withLock { $0.removeValue(forKey: index) }?.dispose()
            }
        }
    }

    private func executions(finishing count: Int) -> Executions {
        let finished = expectation(description: "\(count) executions finished")
        finished.expectedFulfillmentCount = max(count, 1)
        if count == 0 { finished.isInverted = true }
        return Executions(finished)
    }

    func testSharing_tenConcurrentIdenticalGETs_serverCountsOneRequestAndAllGetTheBody() {
        server.route("GET", "/slow", response: LoopbackResponse.json(Data(#"{"n":1}"#.utf8)).delayed(by: 0.5))
        let executions = executions(finishing: 10)

        executions.start(10, client: client) { _ in RetryEndpoint(path: "/slow") }
        XCTAssertEqual(sharing.inFlightCount, 1, "every execution joined the first one's request")
        wait(for: [executions.finished], timeout: 10)

        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(executions.bodies.value, Array(repeating: #"{"n":1}"#, count: 10))
        XCTAssertEqual(executions.errors.value, [])
        XCTAssertEqual(sharing.inFlightCount, 0)
        executions.dispose(0..<10)
    }

    func testSharing_disposingNineOfTen_doesNotCancelTheRequest() {
        server.route("GET", "/slow", response: LoopbackResponse.json(Data(#"{"n":2}"#.utf8)).delayed(by: 0.5))
        let executions = executions(finishing: 1)

        executions.start(10, client: client) { _ in RetryEndpoint(path: "/slow") }
        waitForServer("the shared request") { $0.requestCount == 1 }
        executions.dispose(0..<9)
        wait(for: [executions.finished], timeout: 10)

        XCTAssertEqual(executions.bodies.value, [#"{"n":2}"#], "only the tenth, which stayed, got the body")
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(server.clientDisconnectCount, 0, "the request was not cancelled")
        executions.dispose(9..<10)
    }

    func testSharing_disposingAllTen_cancelsTheRequest() {
        let executions = executions(finishing: 0)

        executions.start(10, client: client) { _ in RetryEndpoint(path: "/hang") }
        waitForServer("the shared request") { $0.requestCount == 1 }
        executions.dispose(0..<9)
        XCTAssertEqual(server.clientDisconnectCount, 0)
        executions.dispose(9..<10)

        waitForServer("the client closing the shared request") { $0.clientDisconnectCount == 1 }
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(sharing.inFlightCount, 0)
        wait(for: [executions.finished], timeout: 0.2)
        XCTAssertEqual(executions.bodies.value, [])
        XCTAssertEqual(executions.errors.value, [], "disposed executions are not failed, only let go")
    }

    func testSharing_differentURLs_areNotShared() {
        let executions = executions(finishing: 10)

        executions.start(10, client: client) { index in RetryEndpoint(path: "/delay/\(300 + index % 2)") }
        wait(for: [executions.finished], timeout: 10)

        XCTAssertEqual(server.requestCount, 2, "one request per URL")
        XCTAssertEqual(
            Set(executions.bodies.value), [#"{"delayMilliseconds":300}"#, #"{"delayMilliseconds":301}"#])
        XCTAssertEqual(executions.bodies.value.count, 10)
        executions.dispose(0..<10)
    }

    func testSharing_identicalGETsOneAfterTheOther_eachGoToTheServer() throws {
        for _ in 0..<2 {
            let response = try outcome(client, RetryEndpoint(path: "/json"), StringResponseSerializer())
            XCTAssertEqual(response.value, LoopbackServer.sampleJSON)
        }
        XCTAssertEqual(server.requestCount, 2, "nothing is cached")
    }

    func testSharing_posts_areNeverShared() {
        let executions = executions(finishing: 3)

        executions.start(3, client: client) { _ in RetryEndpoint(path: "/delay/200", method: .post) }
        wait(for: [executions.finished], timeout: 10)

        XCTAssertEqual(server.requestCount, 3)
        executions.dispose(0..<3)
    }
}
