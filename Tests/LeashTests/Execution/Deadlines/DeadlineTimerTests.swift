import Dispatch
import Foundation
import Rx
import LeashTestSupport
import XCTest

@testable import Leash

/// The one timer that holds the deadlines of executions on the default scheduler.
final class DeadlineTimerTests: XCTestCase {
    func testDeadline_firesOnceAfterItsTime_notBefore() {
        let timer = DeadlineTimer()
        let fired = expectation(description: "fired")
        let start = DispatchTime.now().uptimeNanoseconds
        let elapsed = SpecLocked<[Int]>([])
        _ = timer.schedule(after: 0.1) {
            elapsed.withLock { $0.append(Int(DispatchTime.now().uptimeNanoseconds - start)) }
            fired.fulfill()
        }
        wait(for: [fired], timeout: 5)
        XCTAssertEqual(elapsed.value.count, 1)
        XCTAssertGreaterThanOrEqual(elapsed.value.first ?? 0, 100_000_000, "fired early")
    }

    func testDisposedDeadline_neverFires_andLetsGoOfItsActionAtOnce() {
        let timer = DeadlineTimer()
        let later = expectation(description: "a later deadline")
        weak var weakToken: ReleaseToken?
        let fired = SpecLocked<[Int]>([])
        do {
            let token = ReleaseToken()
            weakToken = token
            let deadline = timer.schedule(after: 0.05) {
                token.touch()
                fired.withLock { $0.append(1) }
            }
            deadline.dispose()
        }
        XCTAssertNil(weakToken, "a disposed deadline still held its action")
        _ = timer.schedule(after: 0.1) { later.fulfill() }
        wait(for: [later], timeout: 5)
        XCTAssertEqual(fired.value, [])
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
        let order = SpecLocked<[Int]>([])
        let all = expectation(description: "all fired")
        all.expectedFulfillmentCount = 3
        for (index, seconds) in [0.15, 0.05, 0.1].enumerated() {
            _ = timer.schedule(after: seconds) {
                order.withLock { $0.append(index) }
                all.fulfill()
            }
        }
        wait(for: [all], timeout: 5)
        XCTAssertEqual(order.value, [1, 2, 0])
    }

    func testManyThreadsSchedulingAndDisposing_onlyTheKeptDeadlinesFire() {
        let timer = DeadlineTimer()
        let count = 4_000
        let fired = SpecLocked<[Int]>([])
        let kept = expectation(description: "every kept deadline")
        kept.expectedFulfillmentCount = count / 4
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let deadline = timer.schedule(after: index % 4 == 0 ? 0.02 : 0.05) {
                fired.withLock { $0.append(index) }
                if index % 4 == 0 { kept.fulfill() }
            }
            if index % 4 != 0 { deadline.dispose() }
        }
        wait(for: [kept], timeout: 10)
        // The disposed ones were due after the kept ones: let their time pass too.
        let after = expectation(description: "after the disposed ones' time")
        _ = timer.schedule(after: 0.1) { after.fulfill() }
        wait(for: [after], timeout: 5)
        XCTAssertEqual(Set(fired.value), Set(stride(from: 0, to: count, by: 4)))
        XCTAssertEqual(fired.value.count, count / 4, "a deadline fired twice")
    }
}

/// An object whose release a test watches through a weak reference.
final class ReleaseToken: @unchecked Sendable {
    func touch() {}
}
