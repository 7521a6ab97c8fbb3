import Dispatch
import Foundation
import Rx
import XCTest

@testable import Leash

/// The one timer that holds the deadlines of executions on the default scheduler.
final class DeadlineTimerTests: XCTestCase {
    func testDeadline_firesOnceAfterItsTime_notBefore() {
        let timer = DeadlineTimer()
        let fired = expectation(description: "fired")
        let start = DispatchTime.now().uptimeNanoseconds
        let elapsed = Recorder()
        _ = timer.schedule(after: 0.1) {
            elapsed.add(Int(DispatchTime.now().uptimeNanoseconds - start))
            fired.fulfill()
        }
        wait(for: [fired], timeout: 5)
        XCTAssertEqual(elapsed.values.count, 1)
        XCTAssertGreaterThanOrEqual(elapsed.values.first ?? 0, 100_000_000, "fired early")
    }

    func testDisposedDeadline_neverFires_andLetsGoOfItsActionAtOnce() {
        let timer = DeadlineTimer()
        let later = expectation(description: "a later deadline")
        weak var weakToken: Token?
        let fired = Recorder()
        do {
            let token = Token()
            weakToken = token
            let deadline = timer.schedule(after: 0.05) {
                token.touch()
                fired.add(1)
            }
            deadline.dispose()
        }
        XCTAssertNil(weakToken, "a disposed deadline still held its action")
        _ = timer.schedule(after: 0.1) { later.fulfill() }
        wait(for: [later], timeout: 5)
        XCTAssertEqual(fired.values, [])
    }

    func testShorterDeadlineAfterALongOne_firesOnItsOwnTime() {
        let timer = DeadlineTimer()
        let long = timer.schedule(after: 60) { XCTFail("the 60 s deadline fired") }
        let fired = expectation(description: "the short deadline")
        _ = timer.schedule(after: 0.05) { fired.fulfill() }
        wait(for: [fired], timeout: 5)
        long.dispose()
    }

    func testDeadlinesOfSeveralLengths_fireInTheOrderTheyAreDue() {
        let timer = DeadlineTimer()
        let order = Recorder()
        let all = expectation(description: "all fired")
        all.expectedFulfillmentCount = 3
        for (index, seconds) in [0.15, 0.05, 0.1].enumerated() {
            _ = timer.schedule(after: seconds) {
                order.add(index)
                all.fulfill()
            }
        }
        wait(for: [all], timeout: 5)
        XCTAssertEqual(order.values, [1, 2, 0])
    }

    func testManyThreadsSchedulingAndDisposing_onlyTheKeptDeadlinesFire() {
        let timer = DeadlineTimer()
        let count = 4_000
        let fired = Recorder()
        let kept = expectation(description: "every kept deadline")
        kept.expectedFulfillmentCount = count / 4
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let deadline = timer.schedule(after: index % 4 == 0 ? 0.02 : 0.05) {
                fired.add(index)
                if index % 4 == 0 { kept.fulfill() }
            }
            if index % 4 != 0 { deadline.dispose() }
        }
        wait(for: [kept], timeout: 10)
        // The disposed ones were due after the kept ones: let their time pass too.
        let after = expectation(description: "after the disposed ones' time")
        _ = timer.schedule(after: 0.1) { after.fulfill() }
        wait(for: [after], timeout: 5)
        XCTAssertEqual(Set(fired.values), Set(stride(from: 0, to: count, by: 4)))
        XCTAssertEqual(fired.values.count, count / 4, "a deadline fired twice")
    }
}

private final class Token: @unchecked Sendable {
    func touch() {}
}

private final class Recorder: @unchecked Sendable {
    // @unchecked: `stored` is behind `lock`.
    private let lock = NSLock()
    private var stored: [Int] = []

    func add(_ value: Int) { lock.withLock { stored.append(value) } }
    var values: [Int] { lock.withLock { stored } }
}
