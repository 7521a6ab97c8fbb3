import Dispatch
import Foundation
import Leash
import LeashTesting
import Rx
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Many executions at once, with interceptors calling back from random threads.
final class PipelineConcurrencyTests: PipelineTestCase {
    private static let executionCount = 200

    /// Calls back from a random global queue, sometimes inline, sometimes a little later.
    private static func randomCallBack() -> PipelineCallBack {
        switch Int.random(in: 0..<3) {
        case 0: return .inline
        case 1: return .globalQueue
        default: return .globalQueueAfter(Double.random(in: 0...0.002))
        }
    }

    private func makeClient(_ transport: StubTransport, timeout: TimeInterval? = nil) throws -> Client {
        let log = PipelineLog()
        return try makePipelineClient(transport) { builder in
            if let timeout { builder.timeout(timeout) }
            builder.add(
                interceptor: PipelineExecutionInterceptor { chain in
                    // Every tenth execution answers from a "cache" first.
                    if chain.endpoint.path.hasSuffix("0") {
                        chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                    }
                    Self.randomCallBack().run { chain.proceed() }
                }
            )
            .add(interceptor: PipelineKindRecorder("A", log: log, callBack: Self.randomCallBack()))
            .add(
                interceptor: PipelineCompletionInterceptor { chain, response in
                    // Every 401 refreshes and retries once, from another thread.
                    guard (response.error as? LeashError)?.isUnauthorized == true, chain.attempt == 1 else {
                        return Self.randomCallBack().run { chain.proceed() }
                    }
                    DispatchQueue.global().async {
                        do { try chain.retry() } catch { chain.complete(with: error) }
                    }
                })
        }
    }

    private func stubEveryPath(_ transport: StubTransport) {
        for index in 0..<Self.executionCount {
            let path = "/v1/users/\(index)"
            switch index % 4 {
            case 1: transport.stub(path: path, .status(401), .json(specBobJSON))
            case 2: transport.stub(path: path, .error(.networkConnectionLost, delay: 0.001))
            default: transport.stub(path: path, .json(specBobJSON, delay: TimeInterval(Int.random(in: 0...3)) / 1000))
            }
        }
    }

    func testParallelExecutions_interceptorsOnRandomThreads_allCompleteCorrectlyAndNothingLeaks() throws {
        let transport = StubTransport()
        stubEveryPath(transport)
        let client = try makeClient(transport)
        let done = expectation(description: "every execution finished")
        done.expectedFulfillmentCount = Self.executionCount
        let outcomes = PipelineBox<[Int: [String]]>([:])

        DispatchQueue.concurrentPerform(iterations: Self.executionCount) { index in
            client.execute(PipelineEndpoint(path: "/users/\(index)")) { (response: Response<SpecUser>) in
                let outcome: String
                if let value = response.value {
                    outcome = "\(value.name) \(response.source.map { "\($0)" } ?? "?")"
                } else {
                    outcome = "error"
                }
                var isLast = false
                outcomes.mutate { all in
                    all[index, default: []].append(outcome)
                    isLast = outcome == "error" || outcome.hasSuffix("network")
                }
                if isLast { done.fulfill() }
            }
        }
        wait(for: [done], timeout: 30)

        for index in 0..<Self.executionCount {
            let got = outcomes.value[index] ?? []
            var expected: [String] = index % 4 == 2 ? ["error"] : ["Bob network"]
            if index % 10 == 0 { expected.insert("Alice interceptor", at: 0) }
            XCTAssertEqual(got, expected, "execution \(index)")
        }
        // One request each, and a second one after each 401.
        XCTAssertEqual(transport.requests.count, Self.executionCount + Self.executionCount / 4)
    }

    func testParallelExecutions_halfCancelledOnTheCallbackQueue_noCallbackAfterCancelAndNothingLeaks() throws {
        let transport = StubTransport()
        stubEveryPath(transport)
        // Cancelling on the callback queue makes "after cancel()" exact: the queue is serial.
        let queue = DispatchQueue(label: "leash.tests.callbacks")
        let client = try makeClient(transport, timeout: 5)
        let done = expectation(description: "every execution that was not cancelled finished")
        done.expectedFulfillmentCount = Self.executionCount / 2
        let lateCallbacks = PipelineBox(0)

        DispatchQueue.concurrentPerform(iterations: Self.executionCount) { index in
            let cancelled = PipelineBox(false)
            let request = client.execute(PipelineEndpoint(path: "/users/\(index)"), queue: queue) {
                (response: Response<SpecUser>) in
                if cancelled.value { lateCallbacks.mutate { $0 += 1 } }
                if index % 2 == 1 && (response.isFailure || response.source == .network) { done.fulfill() }
            }
            if index % 2 == 0 {
                queue.async {
                    request.cancel()
                    cancelled.value = true
                }
            }
        }
        wait(for: [done], timeout: 30)
        queue.sync {}

        XCTAssertEqual(lateCallbacks.value, 0)
    }

    func testExecutionStream_cacheRacingNetwork_observerIsNeverCalledConcurrently() throws {
        // The cached value crosses the completion interceptor on one thread while the
        // network's progress events come from another: the observer must still get one
        // event at a time, in an order that keeps the grammar.
        let transport = StubTransport()
            .stub(path: "/v1/users/1", .json(specBobJSON, delay: 0.0002))
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineExecutionInterceptor { chain in
                    chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                    chain.proceed()
                }
            )
            .add(
                interceptor: PipelineCompletionInterceptor { chain, _ in
                    PipelineCallBack.globalQueueAfter(Double.random(in: 0...0.0004)).run { chain.proceed() }
                })
        }
        let overlaps = PipelineBox(0)
        let done = expectation(description: "every execution completed")
        done.expectedFulfillmentCount = 100

        for _ in 0..<100 {
            let values = PipelineBox<[SpecUser]>([])
            let inFlight = PipelineBox(0)
            _ = client.eventStream(PipelineEndpoint(), as: SpecUser.self)
                .subscribe(
                    onNext: { event in
                        inFlight.mutate { count in
                            count += 1
                            if count > 1 { overlaps.mutate { $0 += 1 } }
                        }
                        // Stay inside the handler a moment, so that an overlap would show.
                        let until = Date().addingTimeInterval(0.0002)
                        while Date() < until {}
                        if let value = event.value { values.mutate { $0.append(value) } }
                        inFlight.mutate { $0 -= 1 }
                    },
                    onError: { XCTFail("unexpected \($0)") },
                    onCompleted: {
                        XCTAssertEqual(values.value, [specAlice, specBob])
                        done.fulfill()
                    })
        }
        wait(for: [done], timeout: 30)

        XCTAssertEqual(overlaps.value, 0)
    }
}
