import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records, for each response, whether the success interceptor ran on behalf of a Swift
/// task (the `await`ing caller's) or on a plain queue thread.
private final class ThreadProbe: SuccessInterceptor, @unchecked Sendable {
    // @unchecked: `onTask` is behind `lock`.
    private let lock = NSLock()
    private var onTask: [Bool] = []

    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        let isTask = withUnsafeCurrentTask { $0 != nil }
        lock.withLock { onTask.append(isTask) }
        chain.proceed()
    }

    var calls: [Bool] { lock.withLock { onTask } }
}

/// Where `URLSessionTransport` delivers answers: never on URLSession's own work queue
/// (where creating or cancelling a task deadlocks), on the awaiting task for `async`, and in
/// parallel for executions in flight together.
final class LoopbackDeliveryTests: LoopbackIntegrationCase {
    func testAsyncExecute_runsThePipelineAfterTheTransportOnTheAwaitingTask() async throws {
        let probe = ThreadProbe()
        let client = try makeClient { $0.add(interceptor: probe) }
        for id in 1...3 {
            let sample = try await client.execute(SpecEndpoint("/json"), as: LoopbackSample.self)
            XCTAssertEqual(sample.id, 1, "request \(id)")
        }
        XCTAssertEqual(probe.calls, [true, true, true])
    }

    func testCallback_runsThePipelineOnATransportQueueNotOnATask() throws {
        let probe = ThreadProbe()
        let client = try makeClient { $0.add(interceptor: probe) }
        let done = expectation(description: "response")
        client.execute(SpecEndpoint("/json")) { (response: Response<LoopbackSample>) in
            XCTAssertEqual(response.value?.id, 1)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(probe.calls, [false])
    }

    func testCallback_startingAndCancellingRequestsFromACompletion_doesNotDeadlock() throws {
        // Creating a task waits for URLSession's work queue, and so does cancelling one: a
        // completion that ran on that queue would hang (or crash) here.
        let client = try makeClient()
        let nested = expectation(description: "the request started from a completion")
        let hanging = client.execute(SpecEndpoint("/hang")) { (_: Response<Data>) in }
        // At the server before it is cancelled, so that the cancel has a connection to close
        // (one cancelled while it connects is never sent, and its connection may be kept).
        waitForServer("the hanging request") { $0.requestCount == 1 }
        client.execute(SpecEndpoint("/json")) { (first: Response<LoopbackSample>) in
            XCTAssertEqual(first.value?.id, 1)
            hanging.cancel()
            client.execute(SpecEndpoint("/json")) { (second: Response<LoopbackSample>) in
                XCTAssertEqual(second.value?.id, 1)
                nested.fulfill()
            }
        }
        wait(for: [nested], timeout: 10)
        waitForServer("the cancelled request's connection closing") { $0.clientDisconnectCount >= 1 }
    }

    func testCallback_executionsInFlightTogether_allArriveWithTheirOwnValues() throws {
        let client = try makeClient()
        let count = 64
        let done = expectation(description: "every response")
        done.expectedFulfillmentCount = count
        let values = SpecLocked<[String: String]>([:])
        for index in 0..<count {
            client.execute(SpecEndpoint("/echo", parameters: ["n": "\(index)"])) {
                (response: Response<LoopbackServer.EchoedRequest>) in
                values.withLock { $0["\(index)"] = response.value?.queryItems.first?.value }
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(values.value.count, count)
        XCTAssertTrue(values.value.allSatisfy { $0.key == $0.value }, "a response reached another request's callback")
    }
}
