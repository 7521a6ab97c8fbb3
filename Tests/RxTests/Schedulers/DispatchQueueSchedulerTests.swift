import Dispatch
import Foundation
import Rx
import XCTest

/// `SerialDispatchQueueScheduler` and `ConcurrentDispatchQueueScheduler`, on real queues.
final class DispatchQueueSchedulerTests: RxTestCase {
    private let queueKey = DispatchSpecificKey<String>()

    /// A serial scheduler whose queue is tagged, so actions can tell where they run.
    private func makeSerialScheduler() -> SerialDispatchQueueScheduler {
        let key = queueKey
        return SerialDispatchQueueScheduler(
            internalSerialQueueName: "test.serial",
            serialQueueConfiguration: { $0.setSpecific(key: key, value: "test.serial") })
    }

    func testSerialSchedule_runsActionsOnItsQueueInOrder() {
        let scheduler = makeSerialScheduler()
        let log = ShareEventLog()
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = 20
        let key = queueKey
        for index in 0..<20 {
            _ = scheduler.schedule(index) { value in
                log.append("\(value)@\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")")
                done.fulfill()
                return Disposables.create()
            }
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.entries, (0..<20).map { "\($0)@test.serial" })
    }

    func testSerialSchedule_disposedBeforeItRunsNeverRuns() {
        let scheduler = makeSerialScheduler()
        let log = ShareEventLog()
        let gate = DispatchSemaphore(value: 0)
        _ = scheduler.schedule(()) { _ in
            gate.wait()
            return Disposables.create()
        }
        let cancelled = scheduler.schedule(()) { _ in
            log.append("cancelled ran")
            return Disposables.create()
        }
        cancelled.dispose()
        gate.signal()
        let drained = expectation(description: "queue drained")
        _ = scheduler.schedule(()) { _ in
            drained.fulfill()
            return Disposables.create()
        }
        wait(for: [drained], timeout: 5)
        XCTAssertEqual(log.entries, [])
    }

    func testSerialSchedule_disposingAfterItRanDisposesWhatTheActionReturned() {
        let scheduler = makeSerialScheduler()
        let returned = BooleanDisposable()
        let ran = expectation(description: "ran")
        let scheduled = scheduler.schedule(()) { _ in
            ran.fulfill()
            return returned
        }
        wait(for: [ran], timeout: 5)
        let settled = expectation(description: "settled")
        _ = scheduler.schedule(()) { _ in
            settled.fulfill()
            return Disposables.create()
        }
        wait(for: [settled], timeout: 5)
        XCTAssertFalse(returned.isDisposed)
        scheduled.dispose()
        XCTAssertTrue(returned.isDisposed)
    }

    func testSerialScheduleRelative_runsOnItsQueueAfterTheDelay() {
        let scheduler = makeSerialScheduler()
        let start = Date()
        let ran = expectation(description: "ran")
        let key = queueKey
        _ = scheduler.scheduleRelative("state", dueTime: .milliseconds(50)) { state in
            XCTAssertEqual(state, "state")
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "test.serial")
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.045)
            ran.fulfill()
            return Disposables.create()
        }
        wait(for: [ran], timeout: 5)
    }

    func testSerialScheduleRelative_disposedBeforeDueNeverRuns() {
        let scheduler = makeSerialScheduler()
        let log = ShareEventLog()
        let pending = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
            log.append("ran")
            return Disposables.create()
        }
        pending.dispose()
        let later = expectation(description: "later")
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(60)) { _ in
            later.fulfill()
            return Disposables.create()
        }
        wait(for: [later], timeout: 5)
        XCTAssertEqual(log.entries, [])
    }

    func testSerialScheduleRelative_disposedOnItsQueueAfterTheTimerFiredNeverRuns() {
        let scheduler = makeSerialScheduler()
        let log = ShareEventLog()
        let holder = ShareDisposableHolder()
        let done = expectation(description: "done")
        _ = scheduler.schedule(()) { _ in
            holder.set(
                scheduler.scheduleRelative((), dueTime: .milliseconds(1)) { _ in
                    log.append("ran")
                    return Disposables.create()
                })
            // The timer fires while the queue is busy here; its handler waits behind us.
            Thread.sleep(forTimeInterval: 0.03)
            holder.take()?.dispose()
            return Disposables.create()
        }
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(60)) { _ in
            done.fulfill()
            return Disposables.create()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.entries, [])
    }

    func testSerialSchedulePeriodic_threadsStateUntilDisposed() {
        let scheduler = makeSerialScheduler()
        let log = ShareEventLog()
        let holder = ShareDisposableHolder()
        let fourTicks = expectation(description: "four ticks")
        fourTicks.expectedFulfillmentCount = 4
        let key = queueKey
        holder.set(
            scheduler.schedulePeriodic(10, startAfter: .milliseconds(1), period: .milliseconds(2)) { value in
                log.append("\(value)@\(DispatchQueue.getSpecific(key: key) ?? "elsewhere")")
                fourTicks.fulfill()
                // Disposed from the scheduler's own queue: no tick may follow.
                if value == 13 { holder.take()?.dispose() }
                return value + 1
            })
        wait(for: [fourTicks], timeout: 5)
        let settled = expectation(description: "settled")
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(30)) { _ in
            settled.fulfill()
            return Disposables.create()
        }
        wait(for: [settled], timeout: 5)
        XCTAssertEqual(log.entries, (10...13).map { "\($0)@test.serial" })
    }

    func testSerialInitialisers_runWorkOffTheMainThread() {
        let schedulers = [
            SerialDispatchQueueScheduler(qos: .userInitiated),
            SerialDispatchQueueScheduler(queue: .global(), internalSerialQueueName: "test.targeted"),
            SerialDispatchQueueScheduler(internalSerialQueueName: "test.plain", leeway: .milliseconds(1)),
        ]
        let ran = expectation(description: "ran")
        ran.expectedFulfillmentCount = schedulers.count
        for scheduler in schedulers {
            _ = scheduler.scheduleRelative((), dueTime: .milliseconds(1)) { _ in
                XCTAssertFalse(Thread.isMainThread)
                ran.fulfill()
                return Disposables.create()
            }
        }
        wait(for: [ran], timeout: 5)
        XCTAssertLessThanOrEqual(abs(schedulers[0].now.timeIntervalSinceNow), 1)
    }

    func testSerialSchedule_actionWrittenInMainActorCodeRunsOffMainWithoutIsolationCrash() {
        let ran = expectation(description: "ran off main")
        let scheduler = makeSerialScheduler()
        MainActor.assumeIsolated {
            scheduleFromMainActor(on: scheduler, fulfilling: ran)
        }
        wait(for: [ran], timeout: 5)
    }

    func testConcurrentScheduler_runsScheduledRelativeAndPeriodicWork() {
        let queue = DispatchQueue(label: "test.concurrent", attributes: .concurrent)
        let schedulers = [
            ConcurrentDispatchQueueScheduler(queue: queue), ConcurrentDispatchQueueScheduler(qos: .utility),
        ]
        for scheduler in schedulers {
            let ran = expectation(description: "ran")
            ran.expectedFulfillmentCount = 5
            _ = scheduler.schedule(()) { _ in
                ran.fulfill()
                return Disposables.create()
            }
            _ = scheduler.scheduleRelative((), dueTime: .milliseconds(5)) { _ in
                ran.fulfill()
                return Disposables.create()
            }
            let holder = ShareDisposableHolder()
            holder.set(
                scheduler.schedulePeriodic(0, startAfter: .milliseconds(1), period: .milliseconds(2)) { count in
                    if count < 3 { ran.fulfill() }
                    if count == 2 { holder.take()?.dispose() }
                    return count + 1
                })
            wait(for: [ran], timeout: 5)
        }
    }

    func testConcurrentScheduler_disposedWorkNeverRuns() {
        let scheduler = ConcurrentDispatchQueueScheduler(qos: .default)
        let log = ShareEventLog()
        let relative = scheduler.scheduleRelative((), dueTime: .milliseconds(20)) { _ in
            log.append("relative")
            return Disposables.create()
        }
        let periodic = scheduler.schedulePeriodic((), startAfter: .milliseconds(20), period: .milliseconds(5)) { _ in
            log.append("periodic")
        }
        relative.dispose()
        periodic.dispose()
        let later = expectation(description: "later")
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(60)) { _ in
            later.fulfill()
            return Disposables.create()
        }
        wait(for: [later], timeout: 5)
        XCTAssertEqual(log.entries, [])
    }

    func testTimeTypealiases_areFoundationTypes() {
        let interval: SerialDispatchQueueScheduler.TimeInterval = 2.5
        let time: ConcurrentDispatchQueueScheduler.Time = Date(timeIntervalSince1970: interval)
        XCTAssertEqual(time.timeIntervalSince1970, 2.5)
        XCTAssertTrue(SerialDispatchQueueScheduler.TimeInterval.self == Foundation.TimeInterval.self)
        XCTAssertTrue(SerialDispatchQueueScheduler.Time.self == Date.self)
        XCTAssertTrue(ConcurrentDispatchQueueScheduler.TimeInterval.self == Foundation.TimeInterval.self)
        XCTAssertTrue(ConcurrentDispatchQueueScheduler.Time.self == Date.self)
        // `MainScheduler` inherits them from `SerialDispatchQueueScheduler`, as in RxSwift.
        XCTAssertTrue(MainScheduler.TimeInterval.self == Foundation.TimeInterval.self)
        XCTAssertTrue(MainScheduler.Time.self == Date.self)
    }
}

/// Schedules work from main-actor code: the action is `@Sendable`, so it is not inferred
/// to be main-actor isolated and may run on the scheduler's queue.
@MainActor
private func scheduleFromMainActor(on scheduler: SerialDispatchQueueScheduler, fulfilling ran: XCTestExpectation) {
    _ = scheduler.schedule(()) { _ in
        XCTAssertFalse(Thread.isMainThread)
        ran.fulfill()
        return Disposables.create()
    }
}
