import Dispatch
import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import XCTest

/// Where `client.rx` delivers: on `queue:` if given, else on the manager's
/// `callbackQueue`, else where the execution produces the events (never the main queue
/// by default); in order, and nothing after dispose.
final class ClientRxDeliveryTests: ClientRxStubCase {
    private let queueKey = DispatchSpecificKey<String>()

    private func labeledQueue(_ label: String, concurrent: Bool = false) -> DispatchQueue {
        let queue = DispatchQueue(label: label, attributes: concurrent ? [.concurrent] : [])
        queue.setSpecific(key: queueKey, value: label)
        return queue
    }

    /// Subscribes, waits for the terminal event, and returns each event with the queue it
    /// was delivered on (`main`, a labelled queue, or `other`).
    private func record<Element>(
        _ stream: Observable<Element>, file: StaticString = #filePath, line: UInt = #line,
        _ name: @escaping (Element) -> String
    ) -> [String] {
        let log = SpecLocked<[String]>([])
        let done = expectation(description: "terminated")
        let key = queueKey
        let subscription = stream.subscribe { event in
            let queue = DispatchQueue.getSpecific(key: key) ?? (Thread.isMainThread ? "main" : "other")
            let description: String
            switch event {
            case .next(let element): description = name(element)
            case .error(let error): description = "error \((error as? LeashError)?.statusCode ?? 0)"
            case .completed: description = "completed"
            }
            log.withLock { $0.append("\(description) on \(queue)") }
            if event.isStopEvent { done.fulfill() }
        }
        wait(for: [done], timeout: 5)
        subscription.dispose()
        return log.value
    }

    private func stubbedTransport(_ response: StubResponse = .json(specAliceJSON, delay: 0.005))
        -> StubTransport
    {
        StubTransport().stub(path: "/v1/users/1", response)
    }

    func testExecute_queueParameter_deliversEveryEventOnThatQueue() throws {
        let client = try makeClientRxClient(stubbedTransport())
        let queue = labeledQueue("delivery")

        let events = record(client.rx.execute(ClientRxGetUser(id: 1), queue: queue)) { $0.name }

        XCTAssertEqual(events, ["Alice on delivery", "completed on delivery"])
    }

    func testExecute_managersCallbackQueue_isHonoured() throws {
        let queue = labeledQueue("callbacks")
        let client = try makeClientRxClient(stubbedTransport()) { $0.callbackQueue(queue) }

        let events = record(client.rx.execute(ClientRxGetUser(id: 1))) { $0.name }

        XCTAssertEqual(events, ["Alice on callbacks", "completed on callbacks"])
    }

    func testExecute_queueParameter_winsOverTheManagersCallbackQueue() throws {
        let client = try makeClientRxClient(stubbedTransport()) { $0.callbackQueue(labeledQueue("callbacks")) }

        let events = record(client.rx.execute(ClientRxGetUser(id: 1), queue: labeledQueue("mine"))) { $0.name }

        XCTAssertEqual(events, ["Alice on mine", "completed on mine"])
    }

    func testExecute_byDefault_deliversWhereTheResponseArrives_notOnTheMainQueue() throws {
        // The stub answers after its delay from a global queue, as URLSession answers on
        // its delegate queue.
        let client = try makeClientRxClient(stubbedTransport())

        let events = record(client.rx.execute(ClientRxGetUser(id: 1))) { $0.name }

        XCTAssertEqual(events, ["Alice on other", "completed on other"])
    }

    func testErrors_areDeliveredOnTheQueueToo() throws {
        let client = try makeClientRxClient(stubbedTransport(.status(500, delay: 0.005)))

        let events = record(client.rx.execute(ClientRxGetUser(id: 1), queue: labeledQueue("delivery"))) { $0.name }

        XCTAssertEqual(events, ["error 500 on delivery"])
    }

    func testEventsAndResponses_honourTheQueueToo() throws {
        let queue = labeledQueue("callbacks")
        let client = try makeClientRxClient(stubbedTransport()) { $0.callbackQueue(queue) }

        let events = record(client.rx.events(ClientRxGetUser(id: 1))) { clientRxName($0) }
        let responses = record(client.rx.response(ClientRxGetUser(id: 1))) { "\($0.value.name) \($0.source)" }

        XCTAssertEqual(
            events,
            [
                "requestPrepared(1) on callbacks", "requestSent(1) on callbacks",
                "downloadProgress(23/23) on callbacks", "responseReceived(200, 1) on callbacks",
                "value(\(specAlice), network) on callbacks",
                "completed on callbacks",
            ])
        XCTAssertEqual(responses, ["Alice network on callbacks", "completed on callbacks"])
    }

    func testSingle_honoursTheQueue() throws {
        let client = try makeClientRxClient(stubbedTransport())

        let events = record(client.rx.single(ClientRxGetUser(id: 1), queue: labeledQueue("delivery")).asObservable()) {
            $0.name
        }

        XCTAssertEqual(events, ["Alice on delivery", "completed on delivery"])
    }

    func testConcurrentCallbackQueue_keepsTheOrder_cacheThenNetwork() throws {
        let queue = labeledQueue("concurrent", concurrent: true)
        let client = try makeClientRxClient(stubbedTransport(.json(specAliceJSON))) {
            $0.callbackQueue(queue).add(interceptor: ClientRxCacheInterceptor(specBobJSON))
        }

        for _ in 0..<20 {
            let events = record(client.rx.execute(ClientRxGetUser(id: 1))) { $0.name }
            XCTAssertEqual(events, ["Bob on concurrent", "Alice on concurrent", "completed on concurrent"])
        }
    }

    func testDispose_onTheDeliveryQueue_stopsTheEventsStillQueued() throws {
        // The stub answers at once, and the delivery queue is held until `subscribe`
        // returned: the cached value, the network value and `completed` are all queued
        // before the first is delivered; disposing in the first stops the rest.
        let queue = labeledQueue("delivery")
        let client = try makeClientRxClient(stubbedTransport(.json(specAliceJSON))) {
            $0.add(interceptor: ClientRxCacheInterceptor(specBobJSON))
        }
        let received = SpecLocked<[String]>([])
        let first = expectation(description: "first value")
        let subscription = SingleAssignmentDisposable()
        queue.suspend()
        subscription.setDisposable(
            client.rx.execute(ClientRxGetUser(id: 1), queue: queue).subscribe { event in
                received.withLock { $0.append("\(event)") }
                subscription.dispose()
                first.fulfill()
            })
        queue.resume()
        wait(for: [first], timeout: 5)
        queue.sync {}
        queue.sync {}

        XCTAssertEqual(received.value, ["next(\(specBob))"])
    }
}
