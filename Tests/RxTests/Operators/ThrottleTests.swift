import Rx
import RxTesting
import XCTest

final class ThrottleTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler, end: Recorded<Event<Int>>?) -> TestableObservable<Int> {
        scheduler.createHotObservable(
            [
                .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .next(410, 6),
                .next(450, 7),
            ] + (end.map { [$0] } ?? []))
    }

    // MARK: latest: false

    func testThrottleNotLatest_dropsElementsInsideTheWindow() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(500))
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(410, 6), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testThrottleNotLatest_noEndRunsUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: nil)
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(410, 6)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testThrottleNotLatest_errorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .error(410, testError),
            .next(450, 7), .completed(500),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2), .error(410, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 410)])
    }

    func testThrottleNotLatest_emptyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 0), .completed(500)])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testThrottleNotLatest_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 0)])
        let res = scheduler.start { xs.throttle(.seconds(200), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    // MARK: latest: true

    func testThrottle_emitsTheLatestElementWhenTheWindowEnds() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(500))
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        // 6 arrives exactly as the window from 210 ends: it goes out at once, and the timer
        // due at 410 finds nothing left to send.
        XCTAssertEqual(res.events, [.next(210, 2), .next(410, 6), .next(610, 7), .completed(610)])
        // The source is released when it completes; `completed` waits for the last element.
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testThrottle_completionAfterTheWindowIsImmediate() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(900))
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(410, 6), .next(610, 7), .completed(900)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 900)])
    }

    func testThrottle_latestOfManyInTheWindowWins() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(300),
        ])
        let res = scheduler.start { xs.throttle(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(260, 4), .completed(300)])
    }

    func testThrottle_noEndRunsUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: nil)
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(410, 6), .next(610, 7)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testThrottle_errorDropsThePendingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(250, 3), .next(310, 4), .next(350, 5), .error(410, testError),
            .next(450, 7), .completed(500),
        ])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2), .error(410, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 410)])
    }

    func testThrottle_emptyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 0), .completed(500)])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testThrottle_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 0)])
        let res = scheduler.start { xs.throttle(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testThrottle_elementsAtTheSameTickAsTheLastEmissionWaitAWholeWindow() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(210, 2), .completed(300)])
        let res = scheduler.start { xs.throttle(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .completed(300)])
    }

    func testThrottle_remainderIsRoundedInTheIntervalsOwnUnit() {
        // Ticks of 0.1 s: the second element comes 0.6 s after the first.
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(216, 2), .completed(300)])
        let seconds = scheduler.createObserver(Int.self)
        let milliseconds = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) {
            _ = xs.throttle(.seconds(2), scheduler: scheduler).subscribe(seconds)
            _ = xs.throttle(.milliseconds(2_000), scheduler: scheduler).subscribe(milliseconds)
        }
        scheduler.start()
        // As in RxSwift: 1.4 s left rounds to 1 s, while 1400 ms stays 1400 ms.
        XCTAssertEqual(seconds.events, [.next(210, 1), .next(226, 2), .completed(300)])
        XCTAssertEqual(milliseconds.events, [.next(210, 1), .next(230, 2), .completed(300)])
    }

    func testThrottle_zeroDueTimeLetsEverythingThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.throttle(.seconds(0), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(210, 2), .next(220, 3), .completed(300)])
    }

    func testThrottle_neverDueTimeOnlyLetsTheFirstElementThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start { xs.throttle(.never, scheduler: scheduler) }
        // The pending element never gets its window, so completion waits with it.
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testThrottle_disposeCancelsThePendingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(500))
        let res = scheduler.start(disposed: 300) { xs.throttle(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testThrottle_disposeAfterSourceCompletedCancelsThePendingCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(500))
        let res = scheduler.start(disposed: 550) { xs.throttle(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(410, 6)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testThrottle_realSchedulerEndsWithTheLatestElement() {
        let scheduler = FilterDispatchQueueScheduler(label: "ThrottleTests.timer")
        let recorder = FilterEventRecorder<Int>()
        let subject = PublishSubject<Int>()
        let subscription = subject.throttle(.milliseconds(2), scheduler: scheduler).subscribe(recorder)
        DispatchQueue(label: "ThrottleTests.emitter").sync {
            var value = 0
            // Emits until several windows went by, racing the timers.
            while recorder.elementCount < 5 {
                subject.onNext(value)
                value += 1
            }
            subject.onNext(value)
            subject.onCompleted()
            // `latest` guarantees the last element eventually goes out.
            XCTAssertTrue(recorder.waitForElement { $0 == value })
        }
        wait(for: [recorder.terminated], timeout: 5)
        subscription.dispose()
        let elements = recorder.elements
        XCTAssertEqual(elements, elements.sorted())
        XCTAssertEqual(Set(elements).count, elements.count)
        XCTAssertEqual(elements.first, 0)
        XCTAssertEqual(recorder.events.last, .completed)
        XCTAssertEqual(recorder.overlappingDeliveries, 0)
    }
}
