import Rx
import RxTesting
import XCTest

final class SkipTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler, end: Recorded<Event<Int>>) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(70, 6), .next(150, 4), .next(210, 9), .next(230, 13), .next(270, 7), .next(280, 1),
            .next(300, -1), end,
        ])
    }

    // MARK: skip(_ count:)

    func testSkip_dropsTheFirstElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start { xs.skip(3) }
        XCTAssertEqual(res.events, [.next(280, 1), .next(300, -1), .completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
    }

    func testSkip_moreThanAvailableOnlyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start { xs.skip(20) }
        XCTAssertEqual(res.events, [.completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
    }

    func testSkip_zeroAndNegativeSkipNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let zero = scheduler.createObserver(Int.self)
        let negative = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) {
            _ = xs.skip(0).subscribe(zero)
            _ = xs.skip(-5).subscribe(negative)
        }
        scheduler.start()
        let all: [Recorded<Event<Int>>] = [
            .next(210, 9), .next(230, 13), .next(270, 7), .next(280, 1), .next(300, -1), .completed(400),
        ]
        XCTAssertEqual(zero.events, all)
        XCTAssertEqual(negative.events, all)
    }

    func testSkip_errorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .error(400, testError))
        let res = scheduler.start { xs.skip(20) }
        XCTAssertEqual(res.events, [.error(400, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
    }

    func testSkip_disposeMidwayUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start(disposed: 285) { xs.skip(2) }
        XCTAssertEqual(res.events, [.next(270, 7), .next(280, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 285)])
    }

    // MARK: skip(_ duration:scheduler:)

    func testSkipDuration_zeroSkipsNothingAfterTheFirstTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(.seconds(0), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testSkipDuration_dropsElementsDuringTheDuration() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(215, 2), .next(220, 3), .completed(230)])
        // The timer is due at 215 but was scheduled after the hot element at 215.
        let res = scheduler.start { xs.skip(.seconds(15), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(220, 3), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testSkipDuration_longerThanTheSourceOnlyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testSkipDuration_errorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(210, testError)])
        let res = scheduler.start { xs.skip(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testSkipDuration_neverSourceEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([])
        let res = scheduler.start { xs.skip(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testSkipDuration_neverDurationDropsEveryElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(900, 2), .completed(950)])
        let res = scheduler.start { xs.skip(.never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(950)])
    }

    func testSkipDuration_timerIsScheduledBeforeTheSourceIsSubscribed() {
        let scheduler = TestScheduler(initialClock: 0)
        // Due at the same tick as the timer, but scheduled after it: it gets through.
        let xs = scheduler.createColdObservable([.next(15, 1), .completed(30)])
        let res = scheduler.start { xs.skip(.seconds(15), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(215, 1), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testSkipDuration_disposeBeforeTheTimerCancelsIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .completed(300)])
        let res = scheduler.start(disposed: 220) { xs.skip(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testSkipFor_isSkipDuration() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(215, 2), .next(220, 3), .completed(230)])
        let res = scheduler.start { xs.skip(for: .seconds(15), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(220, 3), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testSkipDuration_realSchedulerOpensTheGateOnceForGood() {
        let scheduler = FilterDispatchQueueScheduler(label: "SkipTests.timer")
        let recorder = FilterEventRecorder<Int>()
        let subject = PublishSubject<Int>()
        let subscription = subject.skip(.milliseconds(10), scheduler: scheduler).subscribe(recorder)
        let emitter = DispatchQueue(label: "SkipTests.emitter")
        let sent = emitter.sync { () -> Int in
            var value = 0
            // Keeps emitting until elements get through, then a few more.
            while recorder.elementCount < 100 {
                subject.onNext(value)
                value += 1
            }
            subject.onCompleted()
            return value
        }
        wait(for: [recorder.terminated], timeout: 5)
        subscription.dispose()
        let elements = recorder.elements
        // Everything from the first forwarded element on, with no gap.
        XCTAssertEqual(elements, Array((sent - elements.count)..<sent))
        XCTAssertEqual(recorder.events.last, .completed)
        XCTAssertEqual(recorder.overlappingDeliveries, 0)
    }
}
