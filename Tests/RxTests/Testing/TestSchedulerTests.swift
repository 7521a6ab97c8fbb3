import Foundation
import Rx
import RxTesting
import XCTest

final class TestSchedulerTests: RxTestCase {
    // MARK: hot and cold observables

    func testHotObservable_emitsAtAbsoluteTimesAndMissesEarlierEvents() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(200, 2), .next(210, 3), .next(250, 4), .completed(300),
        ])
        let res = scheduler.start { xs }
        // The event at 200 was scheduled when `xs` was created, before the subscription
        // at 200, so it runs first and is missed.
        XCTAssertEqual(res.events, [.next(210, 3), .next(250, 4), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testHotObservable_sharesEventsBetweenSubscribers() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .next(310, 3)])
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        let subscriptions = SubscriptionSlots()
        scheduler.scheduleAt(200) { subscriptions.first = xs.subscribe(early) }
        scheduler.scheduleAt(250) { subscriptions.second = xs.subscribe(late) }
        scheduler.scheduleAt(300) { subscriptions.first?.dispose() }
        scheduler.scheduleAt(400) { subscriptions.second?.dispose() }
        scheduler.start()
        XCTAssertEqual(early.events, [.next(210, 1), .next(260, 2)])
        XCTAssertEqual(late.events, [.next(260, 2), .next(310, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300), Subscription(250, 400)])
    }

    func testColdObservable_emitsRelativeToEachSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(0, 1), .next(10, 2), .completed(20)])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = xs.subscribe(first) }
        scheduler.scheduleAt(300) { _ = xs.subscribe(second) }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(200, 1), .next(210, 2), .completed(220)])
        XCTAssertEqual(second.events, [.next(300, 1), .next(310, 2), .completed(320)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200), Subscription(300)])
    }

    func testColdObservable_disposeStopsItsEventsAndLogsTheTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(100, 2), .completed(200)])
        let res = scheduler.start(disposed: 250) { xs }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testTestableObservable_exposesItsRecordedEvents() {
        let scheduler = TestScheduler(initialClock: 0)
        let events: [Recorded<Event<Int>>] = [.next(10, 1), .completed(20)]
        XCTAssertEqual(scheduler.createHotObservable(events).recordedEvents, events)
        XCTAssertEqual(scheduler.createColdObservable(events).recordedEvents, events)
    }

    // MARK: processing delay

    func testScheduleNow_runsOneTickLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let times = Times()
        scheduler.scheduleAt(100) {
            _ = scheduler.schedule(()) { _ in
                times.values.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(times.values, [101])
    }

    func testScheduleRelative_zeroOrPastRunsOneTickLaterAndFutureRunsOnTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let times = Times()
        scheduler.scheduleAt(100) {
            for delay in [0, 5] {
                _ = scheduler.scheduleRelative((), dueTime: .seconds(delay)) { _ in
                    times.values.append(scheduler.clock)
                    return Disposables.create()
                }
            }
            _ = scheduler.scheduleRelative((), dueTime: .milliseconds(-3000)) { _ in
                times.values.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(times.values, [101, 101, 105])
    }

    func testWithoutProcessingDelay_workScheduledNowRunsNow() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let times = Times()
        scheduler.scheduleAt(100) {
            _ = scheduler.schedule(()) { _ in
                times.values.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(times.values, [100])
    }

    func testScheduleAt_isNotDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let times = Times()
        scheduler.scheduleAt(100) {
            scheduler.scheduleAt(100) { times.values.append(scheduler.clock) }
        }
        scheduler.start()
        XCTAssertEqual(times.values, [100])
    }

    func testResolution_convertsIntervalsToTicks() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1)
        let times = Times()
        _ = scheduler.scheduleRelative((), dueTime: .seconds(2)) { _ in
            times.values.append(scheduler.clock)
            return Disposables.create()
        }
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(500)) { _ in
            times.values.append(scheduler.clock)
            return Disposables.create()
        }
        scheduler.start()
        XCTAssertEqual(times.values, [5, 20])
        XCTAssertEqual(scheduler.now, Date(timeIntervalSince1970: 2))
    }

    func testNow_isTheClockInSecondsSince1970() {
        let scheduler = TestScheduler(initialClock: 0)
        scheduler.advanceTo(250)
        XCTAssertEqual(scheduler.now, Date(timeIntervalSince1970: 250))
    }

    // MARK: start

    func testStart_defaultTimesAre100_200_1000() {
        XCTAssertEqual(TestScheduler.Defaults.created, 100)
        XCTAssertEqual(TestScheduler.Defaults.subscribed, 200)
        XCTAssertEqual(TestScheduler.Defaults.disposed, 1000)
        let scheduler = TestScheduler(initialClock: 0)
        let times = Times()
        let xs = scheduler.createColdObservable([.next(900, 1)])
        let res = scheduler.start { () -> TestableObservable<Int> in
            times.values.append(scheduler.clock)
            return xs
        }
        XCTAssertEqual(times.values, [100])
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testStart_customCreatedSubscribedDisposedTimes() {
        let scheduler = TestScheduler(initialClock: 0)
        let times = Times()
        let xs = scheduler.createColdObservable([.next(5, 1), .next(50, 2)])
        let res = scheduler.start(created: 10, subscribed: 20, disposed: 60) { () -> Observable<Int> in
            times.values.append(scheduler.clock)
            return xs.asObservable()
        }
        XCTAssertEqual(times.values, [10])
        XCTAssertEqual(res.events, [.next(25, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(20, 60)])
    }

    func testStartDisposed_usesDefaultCreationAndSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(400, 2)])
        let res = scheduler.start(disposed: 300) { xs }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testStart_recordsErrorsComparedByDomainCodeAndDescription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, TestError(7))])
        let res = scheduler.start { xs }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, TestError(7))])
        XCTAssertNotEqual(res.events, [.next(210, 1), .error(220, TestError(8))])
    }

    func testCreateObserver_recordsEventsAtTheClock() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = scheduler.createObserver(String.self)
        scheduler.scheduleAt(10) { observer.onNext("a") }
        scheduler.scheduleAt(20) { observer.onCompleted() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(10, "a"), .completed(20)])
    }

    /// An interval nobody disposes would keep `start()` running for ever (a WebSocket's
    /// keepalive pings once hung a test this way for ten minutes): past the limit it stops.
    func testStart_stopsARunaway_afterItsActionLimit_insteadOfHanging() {
        let scheduler = TestScheduler(initialClock: 0)
        scheduler.maximumActionsPerStart = 500
        let ticks = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.interval(.seconds(10), scheduler: scheduler).subscribe(ticks)
        defer { subscription.dispose() }

        scheduler.start()

        XCTAssertEqual(ticks.events.count, 500, "one action per tick of the interval, then the stop")
        XCTAssertEqual(scheduler.clock, 5_000)
        // The default: far more than a test schedules on purpose.
        XCTAssertEqual(TestScheduler(initialClock: 0).maximumActionsPerStart, 1_000_000)
    }
}

private final class Times: @unchecked Sendable {
    // Only touched on the thread driving the scheduler.
    var values: [Int] = []
}

private final class SubscriptionSlots: @unchecked Sendable {
    // Only touched on the thread driving the scheduler.
    var first: Disposable?
    var second: Disposable?
}
