import Dispatch
import Foundation
import LeashTestSupport
import LoopbackServer
import RxLeash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A deadline is met once the response is complete: with `timeout(0.3)`, an answer in a
/// few milliseconds and a subscriber that takes 0.5 s over the value, every form delivers
/// the value and completes (it used to deliver the value and then `LeashError.timeout`,
/// and call the callback twice). Storms of short deadlines racing fast answers end each
/// execution exactly once: a value then completion, or a timeout without a value.
final class DeadlineMetTests: LoopbackIntegrationCase {
    /// How long the app's subscriber takes over a value: longer than the timeout.
    private let slowSubscriber: TimeInterval = 0.5

    private func slowClient() throws -> Client {
        try makeClient { $0.timeout(0.3) }
    }

    /// Stands for an app's slow `onNext`: the work the deadline must not interrupt.
    private func appWork() {
        Thread.sleep(forTimeInterval: slowSubscriber)
    }

    func testCallback_slowCompletion_isCalledOnceWithTheValue() throws {
        let client = try slowClient()
        let calls = SpecLocked<[String]>([])
        let first = expectation(description: "the value")
        let second = expectation(description: "a second call")
        second.isInverted = true
        client.execute(ClientRxEndpoint("/json")) { (response: Response<LoopbackSample>) in
            let count = calls.withLock { calls -> Int in
                calls.append(response.isSuccess ? "value" : "failure: \(response.error.map { "\($0)" } ?? "")")
                return calls.count
            }
            if count == 1 {
                self.appWork()
                first.fulfill()
            } else {
                second.fulfill()
            }
        }
        // A second call would follow the first at once, on the same thread.
        wait(for: [first, second], timeout: 2)
        XCTAssertEqual(calls.withLock { $0 }, ["value"])
    }

    /// Subscribes to `stream` with a slow `onNext` for its values, and returns what the
    /// subscriber saw, once the stream ended.
    private func slowlyObserved<Element>(_ stream: Observable<Element>, isValue: @escaping (Element) -> Bool)
        -> [String]
    {
        let events = SpecLocked<[String]>([])
        let ended = expectation(description: "ended")
        let subscription = stream.subscribe(
            onNext: { element in
                guard isValue(element) else { return }
                events.withLock { $0.append("value") }
                self.appWork()
            },
            onError: { error in
                events.withLock { $0.append("error: \(error)") }
                ended.fulfill()
            },
            onCompleted: {
                events.withLock { $0.append("completed") }
                ended.fulfill()
            })
        wait(for: [ended], timeout: 10)
        subscription.dispose()
        return events.value
    }

    func testRxExecute_slowOnNext_deliversTheValueThenCompletes() throws {
        let client = try slowClient()
        let events = slowlyObserved(client.rx.execute(ClientRxEndpoint("/json"), type: LoopbackSample.self)) {
            $0.id == 1
        }
        XCTAssertEqual(events, ["value", "completed"])
    }

    func testEvents_slowOnNextOfTheValue_completes() throws {
        let client = try slowClient()
        let events = slowlyObserved(client.rx.events(ClientRxEndpoint("/json"), type: LoopbackSample.self)) {
            $0.value != nil
        }
        XCTAssertEqual(events, ["value", "completed"])
    }

    func testSingle_slowSuccessHandler_succeedsOnce() throws {
        let client = try slowClient()
        let outcomes = SpecLocked<[String]>([])
        let ended = expectation(description: "ended")
        let extra = expectation(description: "a second outcome")
        extra.isInverted = true
        let subscription = client.rx.single(ClientRxEndpoint("/json"), type: LoopbackSample.self)
            .subscribe(
                onSuccess: { _ in
                    let count = outcomes.withLock {
                        $0.append("success"); return $0.count
                    }
                    self.appWork()
                    if count == 1 { ended.fulfill() } else { extra.fulfill() }
                },
                onFailure: { error in
                    outcomes.withLock { $0.append("failure: \(error)") }
                    extra.fulfill()
                })
        wait(for: [ended, extra], timeout: 2)
        subscription.dispose()
        XCTAssertEqual(outcomes.withLock { $0 }, ["success"])
    }

    func testAsync_answerJustBeforeTheDeadline_returnsTheValue() async throws {
        // The async form's "subscriber" is the awaiting task; what it races is the gap
        // between keeping the value and completing. A deadline of 0.3 s and an answer
        // after 0.25 s ends in the value, never in a timeout after it.
        let client = try makeClient { $0.timeout(0.3) }
        let sample = try await client.execute(ClientRxEndpoint("/delay/250"), as: DelayAnswer.self)
        XCTAssertEqual(sample.delayMilliseconds, 250)
    }

    // MARK: Storms of short deadlines racing fast answers

    /// Each execution of a storm, however it ended.
    private enum Ending: Equatable {
        case valueThenCompleted
        case timeoutWithoutValue
        case other(String)
    }

    private func assertStorm(_ endings: [Ending], count: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(endings.count, count, "every execution ended once", file: file, line: line)
        let unexpected = endings.filter {
            if case .other = $0 { return true }
            return false
        }
        XCTAssertEqual(unexpected, [], "a value followed by a timeout, or another ending", file: file, line: line)
    }

    /// A deadline of 30 ms against answers that take about as long: some time out, some
    /// do not, and the ones that deliver a value complete.
    private let stormCount = 200
    private let stormPath = "/delay/28"

    func testStorm_rxExecute_endsEachExecutionOnce() throws {
        let client = try makeClient { $0.timeout(0.03) }
        let endings = SpecLocked<[Ending]>([])
        let done = expectation(description: "all ended")
        done.expectedFulfillmentCount = stormCount
        var subscriptions: [Disposable] = []
        for _ in 0..<stormCount {
            let sawValue = SpecLocked(false)
            subscriptions.append(
                client.rx.execute(ClientRxEndpoint(stormPath), type: DelayAnswer.self)
                    .subscribe(
                        onNext: { _ in sawValue.withLock { $0 = true } },
                        onError: { error in
                            let value = sawValue.withLock { $0 }
                            let isTimeout: Bool
                            if case .timeout? = error as? LeashError { isTimeout = true } else { isTimeout = false }
                            endings.withLock {
                                $0.append(
                                    isTimeout && !value ? .timeoutWithoutValue : .other("value \(value), \(error)"))
                            }
                            done.fulfill()
                        },
                        onCompleted: {
                            let value = sawValue.withLock { $0 }
                            endings.withLock { $0.append(value ? .valueThenCompleted : .other("completed, no value")) }
                            done.fulfill()
                        }))
        }
        wait(for: [done], timeout: 60)
        subscriptions.forEach { $0.dispose() }
        assertStorm(endings.withLock { $0 }, count: stormCount)
    }

    func testStorm_callbacks_areCalledOnceEach() throws {
        let client = try makeClient { $0.timeout(0.03) }
        let calls = SpecLocked<[Int: [Bool]]>([:])
        let done = expectation(description: "all called")
        done.expectedFulfillmentCount = stormCount
        for index in 0..<stormCount {
            client.execute(ClientRxEndpoint(stormPath)) { (response: Response<DelayAnswer>) in
                let isTimeout: Bool
                if case .timeout? = response.error as? LeashError { isTimeout = true } else { isTimeout = false }
                calls.withLock { $0[index, default: []].append(response.isSuccess || isTimeout) }
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 60)
        let all = calls.withLock { $0 }
        XCTAssertEqual(all.count, stormCount)
        XCTAssertEqual(all.values.filter { $0 != [true] }.count, 0, "each callback once, a value or a timeout")
    }

    func testStorm_async_endsInAValueOrATimeout() async throws {
        let client = try makeClient { $0.timeout(0.03) }
        let path = stormPath
        let results = try await withThrowingTaskGroup(of: Ending.self) { group in
            for _ in 0..<stormCount {
                group.addTask {
                    do {
                        _ = try await client.execute(ClientRxEndpoint(path), as: DelayAnswer.self)
                        return .valueThenCompleted
                    } catch LeashError.timeout {
                        return .timeoutWithoutValue
                    } catch {
                        return .other("\(error)")
                    }
                }
            }
            var endings: [Ending] = []
            for try await ending in group { endings.append(ending) }
            return endings
        }
        assertStorm(results, count: stormCount)
    }
}

/// What `/delay/{ms}` answers.
private struct DelayAnswer: Decodable, Sendable {
    let delayMilliseconds: Int
}
