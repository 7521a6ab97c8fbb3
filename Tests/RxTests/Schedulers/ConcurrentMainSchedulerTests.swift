import Dispatch
import Foundation
import Rx
import XCTest

/// XCTest runs test methods on the main thread; `wait(for:timeout:)` spins the main run
/// loop, which is what drains the main dispatch queue here.
final class ConcurrentMainSchedulerTests: RxTestCase {
    func testSchedule_runsAtOnceOnTheMainThread() {
        XCTAssertTrue(Thread.isMainThread)
        let log = ShareEventLog()
        _ = ConcurrentMainScheduler.instance.schedule(()) { _ in
            log.append(Thread.isMainThread ? "main" : "other")
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, ["main"])
    }

    func testSchedule_runsAtOnceOnTheMainThreadEvenWithMainSchedulerWorkQueued() {
        let order = ShareEventLog()
        let queued = DispatchSemaphore(value: 0)
        let done = expectation(description: "queued work ran")
        DispatchQueue.global().async {
            _ = MainScheduler.instance.schedule(()) { _ in
                order.append("queued by MainScheduler")
                done.fulfill()
                return Disposables.create()
            }
            queued.signal()
        }
        queued.wait()
        // `MainScheduler.instance` would queue this behind its own work; this scheduler does not.
        _ = ConcurrentMainScheduler.instance.schedule(()) { _ in
            order.append("concurrent main")
            return Disposables.create()
        }
        XCTAssertEqual(order.entries, ["concurrent main"])
        wait(for: [done], timeout: 5)
        XCTAssertEqual(order.entries, ["concurrent main", "queued by MainScheduler"])
    }

    func testSchedule_hopsToTheMainThreadFromAnotherThread() {
        let ran = expectation(description: "ran on main")
        let log = ShareEventLog()
        DispatchQueue.global().async {
            _ = ConcurrentMainScheduler.instance.schedule(()) { _ in
                log.append(Thread.isMainThread ? "main" : "other")
                ran.fulfill()
                return Disposables.create()
            }
        }
        wait(for: [ran], timeout: 5)
        XCTAssertEqual(log.entries, ["main"])
    }

    func testSchedule_disposingQueuedWorkCancelsIt() {
        let ran = ShareEventLog()
        let scheduled = DispatchSemaphore(value: 0)
        let holder = ShareDisposableHolder()
        DispatchQueue.global().async {
            holder.set(
                ConcurrentMainScheduler.instance.schedule(()) { _ in
                    ran.append("cancelled work ran")
                    return Disposables.create()
                })
            scheduled.signal()
        }
        scheduled.wait()
        // The main thread is here, so the queued action cannot have run yet.
        holder.take()?.dispose()
        drainMainQueue()
        XCTAssertEqual(ran.entries, [])
    }

    func testSchedule_returnsTheActionsDisposableWhenRunInline() {
        let inner = BooleanDisposable()
        let result = ConcurrentMainScheduler.instance.schedule(()) { _ in inner }
        result.dispose()
        XCTAssertTrue(inner.isDisposed)
    }

    func testScheduleRelative_runsOnTheMainThreadAfterTheDelay() {
        let start = Date()
        let ran = expectation(description: "ran")
        let log = ShareEventLog()
        _ = ConcurrentMainScheduler.instance.scheduleRelative((), dueTime: .milliseconds(50)) { _ in
            log.append(Thread.isMainThread ? "main" : "other")
            log.append(Date().timeIntervalSince(start) >= 0.045 ? "late enough" : "too early")
            ran.fulfill()
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, [])
        wait(for: [ran], timeout: 5)
        XCTAssertEqual(log.entries, ["main", "late enough"])
    }

    func testSchedulePeriodic_ticksOnTheMainThreadUntilDisposed() {
        let ticks = expectation(description: "three ticks")
        ticks.expectedFulfillmentCount = 3
        let log = ShareEventLog()
        let holder = ShareDisposableHolder()
        holder.set(
            ConcurrentMainScheduler.instance.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(5))
            {
                count in
                log.append("\(count)@\(Thread.isMainThread ? "main" : "other")")
                if count < 3 { ticks.fulfill() }
                // Disposed on the main queue, which runs the ticks: no tick may follow.
                if count == 2 { holder.take()?.dispose() }
                return count + 1
            })
        wait(for: [ticks], timeout: 5)
        let settled = expectation(description: "no more ticks")
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(30)) { settled.fulfill() }
        wait(for: [settled], timeout: 5)
        XCTAssertEqual(log.entries, ["0@main", "1@main", "2@main"])
    }

    func testSubscribeOn_subscribesOnTheMainThread() {
        let log = ShareEventLog()
        let done = expectation(description: "completed")
        let source = Observable<Int>.create { observer in
            log.append(Thread.isMainThread ? "subscribed on main" : "subscribed elsewhere")
            observer.onNext(1)
            observer.onCompleted()
            return Disposables.create()
        }
        let holder = ShareDisposableHolder()
        DispatchQueue.global().async {
            holder.set(
                source.subscribe(on: ConcurrentMainScheduler.instance).subscribe(onCompleted: { done.fulfill() }))
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.entries, ["subscribed on main"])
        holder.take()?.dispose()
    }

    func testNow_isTheWallClock() {
        let before = Date()
        let now = ConcurrentMainScheduler.instance.now
        XCTAssertGreaterThanOrEqual(now, before)
        XCTAssertLessThanOrEqual(now, Date())
    }

    func testTimeTypealiases_areFoundationTypes() {
        let interval: ConcurrentMainScheduler.TimeInterval = 1.5
        let time: ConcurrentMainScheduler.Time = Date(timeIntervalSince1970: interval)
        XCTAssertEqual(time.timeIntervalSince1970, 1.5)
        XCTAssertTrue(ConcurrentMainScheduler.TimeInterval.self == Foundation.TimeInterval.self)
        XCTAssertTrue(ConcurrentMainScheduler.Time.self == Date.self)
    }
}
