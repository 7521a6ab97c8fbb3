import Dispatch
import Foundation
import LeashTesting
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CallbackDelivery`, `CallbackQueue` and `CallbackSink`, how the callback form hands its outcomes on: in place
/// without a queue; on a queue one at a time and in the order sent, even a concurrent one;
/// nothing after the handle's `cancel()` (checked on the queue, just before each call) nor
/// after the closing item; and the sink's outcomes as responses.
final class CallbackSinksTests: RealTimeStubTestCase {
    /// A callback delivery of ints on `queue` (in place without one), recording what its
    /// handler is given.
    private func recordingQueue(_ queue: DispatchQueue?, _ record: SinkRecord, handle: DataRequest? = nil)
        -> CallbackDelivery<Int>
    {
        CallbackDelivery(queue: queue, handle: handle ?? DataRequest(URLRequest(url: executionTestURL))) { item in
            record.record("\(item)")
        }
    }

    func testWithoutAQueue_theHandlerIsCalledInPlace() {
        let record = SinkRecord()
        let callbacks = recordingQueue(nil, record)
        callbacks.send(1)
        XCTAssertEqual(record.all, ["1"], "called before send returned")
    }

    func testOnAConcurrentQueue_itemsArriveOneAtATime_inTheOrderSent() {
        let record = SinkRecord()
        let queue = DispatchQueue(label: "leash.tests.callbacks", attributes: .concurrent)
        let done = expectation(description: "the closing item")
        let callbacks = CallbackQueue<Int>(queue: queue, handle: DataRequest(URLRequest(url: executionTestURL))) {
            item in
            record.record("\(item)")
            if item == 499 { done.fulfill() }
        }

        for item in 0..<500 { callbacks.send(item, closing: item == 499) }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(record.all, (0..<500).map { "\($0)" })
        XCTAssertEqual(record.overlapCount, 0, "two callbacks ran at once")
    }

    func testItemsSentFromManyThreads_eachArrivesOnce_neverTwoAtOnce() {
        let record = SinkRecord()
        let queue = DispatchQueue(label: "leash.tests.callbacks", attributes: .concurrent)
        let count = 2_000
        let done = expectation(description: "every item")
        done.expectedFulfillmentCount = count
        let callbacks = CallbackQueue<Int>(queue: queue, handle: DataRequest(URLRequest(url: executionTestURL))) {
            item in
            record.record("\(item)")
            done.fulfill()
        }

        DispatchQueue.concurrentPerform(iterations: count) { callbacks.send($0) }
        wait(for: [done], timeout: 10)

        XCTAssertEqual(Set(record.all), Set((0..<count).map { "\($0)" }))
        XCTAssertEqual(record.all.count, count)
        XCTAssertEqual(record.overlapCount, 0)
    }

    func testAfterTheHandlesCancel_noItemIsHandled_evenOneAlreadyOnTheQueue() {
        let record = SinkRecord()
        let queue = DispatchQueue(label: "leash.tests.held")
        let handle = DataRequest(URLRequest(url: executionTestURL))
        let callbacks = recordingQueue(queue, record, handle: handle)
        queue.suspend()

        callbacks.send(1)
        callbacks.send(2)
        handle.cancel()
        queue.resume()
        queue.sync {}

        XCTAssertEqual(record.all, [])
    }

    func testACancelFromACallback_stopsTheItemsAfterIt() {
        let record = SinkRecord()
        let queue = DispatchQueue(label: "leash.tests.cancelling")
        let handle = DataRequest(URLRequest(url: executionTestURL))
        let callbacks = CallbackQueue<Int>(queue: queue, handle: handle) { item in
            record.record("\(item)")
            handle.cancel()
        }
        queue.suspend()

        callbacks.send(1)
        callbacks.send(2)
        queue.resume()
        queue.sync {}

        XCTAssertEqual(record.all, ["1"])
    }

    func testAfterTheClosingItem_nothingMoreIsHandled() {
        let record = SinkRecord()
        let queue = DispatchQueue(label: "leash.tests.closing")
        let callbacks = recordingQueue(queue, record)

        callbacks.send(1, closing: true)
        callbacks.send(2)
        callbacks.send(3, closing: true)
        queue.sync {}

        XCTAssertEqual(record.all, ["1"])
    }

    func testCallbackSink_handsValuesAndTheFailure_butNotACompletion() {
        let record = SinkRecord()
        let sink = CallbackSink<String>(queue: nil, handle: DataRequest(URLRequest(url: executionTestURL))) {
            response in
            record.record(response.value.map { "value \($0)" } ?? "failure \(executionErrorName(response.error))")
        }

        sink.value("a", extra: ResponseExtra(source: .network))
        sink.end(nil)
        sink.end(LeashError.cancelled)

        XCTAssertEqual(record.all, ["value a", "failure cancelled"], "a completion has no callback of its own")
    }

    // MARK: Through the callback form

    func testExecute_callbackQueue_keepsCacheThenNetworkOrder() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specBobJSON, delay: 0.01))
        let (queue, key) = Self.markedQueue("ordered")
        let client = try client {
            $0.callbackQueue(queue).add(
                interceptor: PipelineExecutionInterceptor { chain in
                    chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                    chain.proceed()
                })
        }
        let done = expectation(description: "two callbacks")
        done.expectedFulfillmentCount = 2
        let received = PipelineBox<[String]>([])

        client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in
            let mark = DispatchQueue.getSpecific(key: key) ?? "elsewhere"
            received.mutate { $0.append("\(response.value?.name ?? "error") on \(mark)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(received.value, ["Alice on ordered", "Bob on ordered"])
    }

    func testExecute_concurrentCallbackQueue_stillDeliversOneAtATimeInOrder() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specBobJSON))
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "leash.tests.concurrent", attributes: .concurrent)
        queue.setSpecific(key: key, value: "concurrent")
        let client = try client {
            $0.add(
                interceptor: PipelineExecutionInterceptor { chain in
                    chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                    chain.proceed()
                })
        }
        let done = expectation(description: "two callbacks")
        done.expectedFulfillmentCount = 2
        let received = PipelineBox<[String]>([])
        let inFlight = PipelineBox(0)

        client.execute(PipelineEndpoint(), queue: queue) { (response: Response<SpecUser>) in
            inFlight.mutate { $0 += 1 }
            // The cached value's callback lingers: the network's must wait for it.
            if response.source == .interceptor {
                let until = Date().addingTimeInterval(0.01)
                while Date() < until {}
            }
            let mark = DispatchQueue.getSpecific(key: key) ?? "elsewhere"
            received.mutate { $0.append("\(response.value?.name ?? "error") on \(mark), \(inFlight.value) running") }
            inFlight.mutate { $0 -= 1 }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(received.value, ["Alice on concurrent, 1 running", "Bob on concurrent, 1 running"])
    }
}
