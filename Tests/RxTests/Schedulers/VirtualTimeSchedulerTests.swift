import Foundation
import Rx
import RxTesting
import XCTest

/// `VirtualTimeScheduler` behaviour, through `HistoricalScheduler` (dates, no processing
/// delay) and `TestScheduler` (ticks).
final class VirtualTimeSchedulerTests: RxTestCase {
    private let origin = Date(timeIntervalSince1970: 1_000)

    func testHistoricalScheduler_defaultClockIsTheEpoch() {
        XCTAssertEqual(HistoricalScheduler().clock, Date(timeIntervalSince1970: 0))
        XCTAssertEqual(HistoricalScheduler(initialClock: origin).now, origin)
    }

    func testScheduleRelative_runsAtTheDueTimeAndAdvancesTheClock() {
        let scheduler = HistoricalScheduler(initialClock: origin)
        let log = TimeLog<Date>()
        _ = scheduler.scheduleRelative((), dueTime: .seconds(10)) { _ in
            log.append("a", scheduler.clock)
            return Disposables.create()
        }
        XCTAssertEqual(log.entries.count, 0)
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.1), [origin.addingTimeInterval(10)])
        XCTAssertEqual(scheduler.clock, origin.addingTimeInterval(10))
    }

    func testSchedule_runsAtTheCurrentTimeWithoutProcessingDelay() {
        let scheduler = HistoricalScheduler(initialClock: origin)
        let log = TimeLog<Date>()
        _ = scheduler.schedule(()) { _ in
            log.append("now", scheduler.clock)
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.1), [origin])
    }

    func testActions_runInTimeOrderThenInSchedulingOrder() {
        let scheduler = HistoricalScheduler(initialClock: origin)
        let log = TimeLog<Date>()
        for (name, delay) in [("late", 20), ("early", 5), ("same1", 10), ("same2", 10), ("same3", 10)] {
            _ = scheduler.scheduleRelative((), dueTime: .seconds(delay)) { _ in
                log.append(name, scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["early", "same1", "same2", "same3", "late"])
    }

    func testWorkScheduledWhileRunning_runsInOrderWithTheRest() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let log = TimeLog<Int>()
        scheduler.scheduleAt(10) {
            log.append("a", scheduler.clock)
            _ = scheduler.scheduleRelativeVirtual((), dueTime: 5) { _ in
                log.append("a+5", scheduler.clock)
                return Disposables.create()
            }
            _ = scheduler.schedule(()) { _ in
                log.append("a+0", scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.scheduleAt(12) { log.append("b", scheduler.clock) }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["a", "a+0", "b", "a+5"])
        XCTAssertEqual(log.entries.map(\.1), [10, 10, 12, 15])
    }

    func testPastWork_runsNextWithoutMovingTheClockBack() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        scheduler.scheduleAt(100) {
            scheduler.scheduleAt(50) { log.append("past", scheduler.clock) }
        }
        scheduler.scheduleAt(200) { log.append("later", scheduler.clock) }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["past", "later"])
        XCTAssertEqual(log.entries.map(\.1), [100, 200])
    }

    func testDisposedAction_doesNotRun() {
        let scheduler = HistoricalScheduler(initialClock: origin)
        let log = TimeLog<Date>()
        let cancelled = scheduler.scheduleRelative((), dueTime: .seconds(1)) { _ in
            log.append("cancelled", scheduler.clock)
            return Disposables.create()
        }
        _ = scheduler.scheduleRelative((), dueTime: .seconds(2)) { _ in
            log.append("kept", scheduler.clock)
            return Disposables.create()
        }
        cancelled.dispose()
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["kept"])
    }

    func testDisposingAfterRun_disposesWhatTheActionReturned() {
        let scheduler = HistoricalScheduler(initialClock: origin)
        let returned = BooleanDisposable()
        let scheduled = scheduler.schedule(()) { _ in returned }
        scheduler.start()
        XCTAssertFalse(returned.isDisposed)
        scheduled.dispose()
        XCTAssertTrue(returned.isDisposed)
    }

    func testAdvanceTo_runsWorkDueUpToAndIncludingTheTimeThenSetsTheClock() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        for time in [10, 20, 30] {
            scheduler.scheduleAt(time) { log.append("\(time)", scheduler.clock) }
        }
        scheduler.advanceTo(20)
        XCTAssertEqual(log.entries.map(\.0), ["10", "20"])
        XCTAssertEqual(scheduler.clock, 20)
        scheduler.advanceTo(25)
        XCTAssertEqual(log.entries.map(\.0), ["10", "20"])
        XCTAssertEqual(scheduler.clock, 25)
        scheduler.advanceTo(30)
        XCTAssertEqual(log.entries.map(\.0), ["10", "20", "30"])
    }

    func testAdvanceTo_thePastDoesNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        scheduler.scheduleAt(10) { log.append("10", scheduler.clock) }
        scheduler.advanceTo(50)
        scheduler.scheduleAt(60) { log.append("60", scheduler.clock) }
        scheduler.advanceTo(40)
        XCTAssertEqual(scheduler.clock, 50)
        XCTAssertEqual(log.entries.map(\.0), ["10"])
        scheduler.start()  // runs what is left, which releases the actions
        XCTAssertEqual(log.entries.map(\.0), ["10", "60"])
    }

    func testAdvanceTo_historicalDates() {
        let scheduler = HistoricalScheduler(initialClock: origin)
        let log = TimeLog<Date>()
        _ = scheduler.scheduleRelative((), dueTime: .seconds(30)) { _ in
            log.append("30", scheduler.clock)
            return Disposables.create()
        }
        scheduler.advanceTo(origin.addingTimeInterval(29))
        XCTAssertEqual(log.entries.count, 0)
        scheduler.advanceTo(origin.addingTimeInterval(30))
        XCTAssertEqual(log.entries.map(\.1), [origin.addingTimeInterval(30)])
    }

    func testSleep_movesTheClockWithoutRunningWork() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        scheduler.scheduleAt(10) { log.append("10", scheduler.clock) }
        scheduler.sleep(50)
        XCTAssertEqual(scheduler.clock, 50)
        XCTAssertEqual(log.entries.count, 0)
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.1), [50], "overdue work runs without moving the clock back")
    }

    func testSleep_negativeIntervalDoesNothing() {
        let scheduler = HistoricalScheduler(initialClock: origin)
        scheduler.sleep(-10)
        XCTAssertEqual(scheduler.clock, origin)
        scheduler.sleep(10)
        XCTAssertEqual(scheduler.clock, origin.addingTimeInterval(10))
    }

    func testStop_endsStartAfterTheCurrentAction() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        scheduler.scheduleAt(10) {
            log.append("10", scheduler.clock)
            scheduler.stop()
        }
        scheduler.scheduleAt(20) { log.append("20", scheduler.clock) }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["10"])
        XCTAssertEqual(scheduler.clock, 10)
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["10", "20"])
    }

    func testStop_endsAdvanceToButStillSetsTheClock() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        scheduler.scheduleAt(10) {
            log.append("10", scheduler.clock)
            scheduler.stop()
        }
        scheduler.scheduleAt(20) { log.append("20", scheduler.clock) }
        scheduler.advanceTo(30)
        XCTAssertEqual(log.entries.map(\.0), ["10"])
        XCTAssertEqual(scheduler.clock, 30)
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["10", "20"])
    }

    func testStartFromInsideAnAction_isIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        scheduler.scheduleAt(10) {
            scheduler.start()
            log.append("10", scheduler.clock)
        }
        scheduler.scheduleAt(20) { log.append("20", scheduler.clock) }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["10", "20"])
    }

    func testScheduleAbsoluteVirtual_runsAtThatTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        _ = scheduler.scheduleAbsoluteVirtual("state", time: 42) { state in
            log.append(state, scheduler.clock)
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["state"])
        XCTAssertEqual(log.entries.map(\.1), [42])
    }

    func testSchedulePeriodic_threadsStateUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        let periodic = scheduler.schedulePeriodic(0, startAfter: .seconds(5), period: .seconds(10)) { state in
            log.append("\(state)", scheduler.clock)
            return state + 1
        }
        scheduler.scheduleAt(40) { periodic.dispose() }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.0), ["0", "1", "2", "3"])
        XCTAssertEqual(log.entries.map(\.1), [5, 15, 25, 35])
    }

    func testScheduleRecursiveWithDueTime_runsEachStepAfterItsDelay() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        _ = scheduler.scheduleRecursive(1, dueTime: .seconds(10)) { value, recurse in
            log.append("\(value)", scheduler.clock)
            if value < 3 { recurse(value + 1, .seconds(value * 10)) }
        }
        scheduler.start()
        XCTAssertEqual(log.entries.map(\.1), [10, 20, 40])
    }

    func testScheduleRecursive_disposeCancelsPendingSteps() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TimeLog<Int>()
        let recursion = scheduler.scheduleRecursive(0) { value, recurse in
            log.append("\(value)", scheduler.clock)
            recurse(value + 1)
        }
        scheduler.scheduleAt(3) { recursion.dispose() }
        scheduler.start()
        // The step for tick 3 was scheduled (at tick 2) after the dispose action, so the
        // dispose runs first at tick 3 and cancels it.
        XCTAssertEqual(log.entries.map(\.1), [1, 2])
    }

    func testDebugDescription_listsTheClockAndThePendingWorkInRunOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        XCTAssertEqual(scheduler.debugDescription, "clock: 0, scheduled: []")
        scheduler.scheduleAt(220) {}
        scheduler.scheduleAt(210) {}
        let cancelled = scheduler.scheduleRelativeVirtual((), dueTime: 215) { _ in Disposables.create() }
        scheduler.scheduleAt(230) {}
        cancelled.dispose()
        // Disposed work is left out.
        XCTAssertEqual(scheduler.debugDescription, "clock: 0, scheduled: [210, 220, 230]")
        scheduler.advanceTo(215)
        XCTAssertEqual(scheduler.debugDescription, "clock: 215, scheduled: [220, 230]")
        scheduler.start()
        XCTAssertEqual(scheduler.debugDescription, "clock: 230, scheduled: []")
    }
}

/// Named times, recorded by scheduled actions.
private final class TimeLog<Time>: @unchecked Sendable {
    // Only touched on the thread driving the scheduler.
    private(set) var entries: [(String, Time)] = []

    func append(_ name: String, _ time: Time) {
        entries.append((name, time))
    }
}
