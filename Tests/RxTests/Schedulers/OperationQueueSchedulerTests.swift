import Dispatch
import Foundation
import Rx
import XCTest

final class OperationQueueSchedulerTests: RxTestCase {
    func testSchedule_runsAsAnOperationWithTheGivenPriority() {
        let queue = OperationQueue()
        let scheduler = OperationQueueScheduler(operationQueue: queue, queuePriority: .high)
        XCTAssertTrue(scheduler.operationQueue === queue)
        XCTAssertEqual(scheduler.queuePriority, .high)
        let ran = expectation(description: "ran")
        _ = scheduler.schedule(7) { value in
            XCTAssertEqual(value, 7)
            XCTAssertNotNil(OperationQueue.current)
            ran.fulfill()
            return Disposables.create()
        }
        wait(for: [ran], timeout: 5)
    }

    func testSchedule_disposedBeforeTheOperationStartsNeverRuns() {
        let queue = OperationQueue()
        queue.isSuspended = true
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let log = ShareEventLog()
        let cancelled = scheduler.schedule(()) { _ in
            log.append("ran")
            return Disposables.create()
        }
        cancelled.dispose()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(log.entries, [])
    }

    func testScheduleRelative_runsAfterTheDelayUnlessDisposed() {
        let queue = OperationQueue()
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let log = ShareEventLog()
        let start = Date()
        let ran = expectation(description: "ran")
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(40)) { _ in
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.035)
            ran.fulfill()
            return Disposables.create()
        }
        let cancelled = scheduler.scheduleRelative((), dueTime: .milliseconds(10)) { _ in
            log.append("cancelled ran")
            return Disposables.create()
        }
        cancelled.dispose()
        wait(for: [ran], timeout: 5)
        XCTAssertEqual(log.entries, [])
    }

    func testSchedulePeriodic_threadsStateUntilDisposed() {
        let queue = OperationQueue()
        let scheduler = OperationQueueScheduler(operationQueue: queue)
        let log = ShareEventLog()
        let holder = ShareDisposableHolder()
        let threeTicks = expectation(description: "three ticks")
        threeTicks.expectedFulfillmentCount = 3
        holder.set(
            scheduler.schedulePeriodic(1, startAfter: .milliseconds(1), period: .milliseconds(2)) { value in
                log.append("\(value)")
                threeTicks.fulfill()
                if value == 7 { holder.take()?.dispose() }
                return value * 2 + 1
            })
        wait(for: [threeTicks], timeout: 5)
        Thread.sleep(forTimeInterval: 0.02)
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertEqual(log.entries, ["1", "3", "7"])
    }
}
