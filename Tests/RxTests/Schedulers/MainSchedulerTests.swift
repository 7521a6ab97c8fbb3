import Dispatch
import Foundation
import Rx
import XCTest

/// XCTest runs test methods on the main thread; `wait(for:timeout:)` spins the main run
/// loop, which is what drains the main dispatch queue here.
final class MainSchedulerTests: RxTestCase {
    func testInstance_runsAtOnceWhenCalledOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        let log = ShareEventLog()
        _ = MainScheduler.instance.schedule(()) { _ in
            log.append(Thread.isMainThread ? "main" : "other")
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, ["main"])
    }

    func testInstance_hopsToTheMainThreadFromAnotherThread() {
        let ran = expectation(description: "ran on main")
        DispatchQueue.global().async {
            _ = MainScheduler.instance.schedule(()) { _ in
                XCTAssertTrue(Thread.isMainThread)
                ran.fulfill()
                return Disposables.create()
            }
        }
        wait(for: [ran], timeout: 5)
    }

    func testInstance_workQueuedFromAnotherThreadRunsBeforeLaterWorkFromMain() {
        let order = ShareEventLog()
        let queued = DispatchSemaphore(value: 0)
        let done = expectation(description: "both ran")
        done.expectedFulfillmentCount = 2
        DispatchQueue.global().async {
            _ = MainScheduler.instance.schedule(()) { _ in
                order.append("background")
                done.fulfill()
                return Disposables.create()
            }
            queued.signal()
        }
        queued.wait()
        // Something of ours is waiting on the main queue: running this now would overtake it.
        _ = MainScheduler.instance.schedule(()) { _ in
            order.append("main")
            done.fulfill()
            return Disposables.create()
        }
        XCTAssertEqual(order.entries, [])
        wait(for: [done], timeout: 5)
        XCTAssertEqual(order.entries, ["background", "main"])
    }

    func testAsyncInstance_queuesEvenOnTheMainThread() {
        let log = ShareEventLog()
        let done = expectation(description: "ran")
        _ = MainScheduler.asyncInstance.schedule(()) { _ in
            log.append("ran")
            done.fulfill()
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, [])
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.entries, ["ran"])
    }

    func testInstance_disposingQueuedWorkCancelsIt() {
        let blocker = DispatchSemaphore(value: 0)
        let scheduled = DispatchSemaphore(value: 0)
        let box = ShareDisposableHolder()
        DispatchQueue.global().async {
            box.set(
                MainScheduler.instance.schedule(()) { _ in
                    XCTFail("cancelled work ran")
                    return Disposables.create()
                })
            scheduled.signal()
            blocker.signal()
        }
        scheduled.wait()
        box.take()?.dispose()
        blocker.wait()
        let drained = expectation(description: "main queue drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 5)
    }

    func testInstance_scheduleRelativeRunsOnMainAfterTheDelay() {
        let start = Date()
        let ran = expectation(description: "ran")
        _ = MainScheduler.instance.scheduleRelative((), dueTime: .milliseconds(50)) { _ in
            XCTAssertTrue(Thread.isMainThread)
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.045)
            ran.fulfill()
            return Disposables.create()
        }
        wait(for: [ran], timeout: 5)
    }

    func testInstance_schedulePeriodicTicksOnMainUntilDisposed() {
        let ticks = expectation(description: "three ticks")
        ticks.expectedFulfillmentCount = 3
        let holder = ShareDisposableHolder()
        holder.set(
            MainScheduler.instance.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(5)) {
                count in
                XCTAssertTrue(Thread.isMainThread)
                if count < 3 { ticks.fulfill() }
                // Disposed from the scheduler's own queue: no tick may follow.
                if count == 2 { holder.take()?.dispose() }
                XCTAssertLessThan(count, 3)
                return count + 1
            })
        wait(for: [ticks], timeout: 5)
        let settled = expectation(description: "no more ticks")
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(30)) { settled.fulfill() }
        wait(for: [settled], timeout: 5)
    }

    func testEnsureExecutingOnScheduler_reportsWithoutCrashing() {
        XCTAssertTrue(MainScheduler.ensureExecutingOnScheduler())
        XCTAssertTrue(MainScheduler.ensureRunningOnMainThread())
        let checked = expectation(description: "checked off main")
        DispatchQueue.global().async {
            XCTAssertFalse(MainScheduler.ensureExecutingOnScheduler(errorMessage: "test: off main, as expected"))
            XCTAssertFalse(MainScheduler.ensureRunningOnMainThread(errorMessage: "test: off main, as expected"))
            checked.fulfill()
        }
        wait(for: [checked], timeout: 5)
    }
}
