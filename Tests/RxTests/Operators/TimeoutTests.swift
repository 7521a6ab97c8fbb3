import Rx
import RxTesting
import XCTest

final class TimeoutTests: RxTestCase {
    func testTimeout_completionBeforeDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .completed(300)])
        let res = scheduler.start { xs.timeout(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testTimeout_errorBeforeDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0), .error(300, testError)])
        let res = scheduler.start { xs.timeout(.seconds(200), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(300, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testTimeout_dueTimeBeyondDisposal() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 0)])
        let res = scheduler.start { xs.timeout(.seconds(1000), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testTimeout_elementsWithinDueTimeRestartTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(10, 42), .next(25, 43), .next(40, 44), .next(50, 45), .completed(60),
        ])
        let res = scheduler.start { xs.timeout(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 42), .next(225, 43), .next(240, 44), .next(250, 45), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
    }

    func testTimeout_elementAtTheDueTickWins() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(10, 42), .next(20, 43), .next(50, 44), .next(60, 45), .completed(70),
        ])
        let res = scheduler.start { xs.timeout(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 42), .next(220, 43), .next(250, 44), .next(260, 45), .completed(270)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 270)])
    }

    func testTimeout_silenceFailsWithTimeoutError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(10, 42), .next(20, 43), .next(50, 44), .next(60, 45), .completed(70),
        ])
        let res = scheduler.start { xs.timeout(.seconds(25), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 42), .next(220, 43), .error(245, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 245)])
    }

    func testTimeout_disposeStopsTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(205, 1), .next(210, 2), .next(240, 3), .next(280, 4), .next(320, 5), .next(350, 6),
            .next(370, 7), .next(420, 8), .next(470, 9), .completed(600),
        ])
        let res = scheduler.start(disposed: 370) { xs.timeout(.seconds(40), scheduler: scheduler) }
        XCTAssertEqual(
            res.events,
            [.next(205, 1), .next(210, 2), .next(240, 3), .next(280, 4), .next(320, 5), .next(350, 6), .next(370, 7)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 370)])
    }

    func testTimeout_switchesToOtherWhenNothingArrives() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(310, 3), .next(400, 4), .completed(500),
        ])
        let ys = scheduler.createColdObservable([.next(50, -1), .next(200, -2), .next(310, -3), .completed(320)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(350, -1), .next(500, -2), .next(610, -3), .completed(620)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(300, 620)])
    }

    func testTimeout_switchesToOtherAfterSomeElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(240, 3), .next(310, 4), .next(430, 5), .completed(500),
        ])
        let ys = scheduler.createColdObservable([.next(50, -1), .next(200, -2), .next(310, -3), .completed(320)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(
            res.events, [.next(240, 3), .next(310, 4), .next(460, -1), .next(610, -2), .next(720, -3), .completed(730)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 410)])
        XCTAssertEqual(ys.subscriptions, [Subscription(410, 730)])
    }

    func testTimeout_silentOtherKeepsSubscriptionUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(240, 3), .next(310, 4), .next(430, 5), .completed(500),
        ])
        let ys = scheduler.createColdObservable([Recorded<Event<Int>>]())
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 3), .next(310, 4)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 410)])
        XCTAssertEqual(ys.subscriptions, [Subscription(410, 1000)])
    }

    func testTimeout_sourceCompletionAfterTheSwitchIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(500)])
        let ys = scheduler.createColdObservable([.next(100, -1)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(400, -1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(300, 1000)])
    }

    func testTimeout_otherErrorIsDelivered() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(500, 42)])
        let ys: TestableObservable<Int> = scheduler.createColdObservable([.error(100, testError)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(400, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(300, 400)])
    }

    func testTimeout_completionInTimeNeverSubscribesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let ys: TestableObservable<Int> = scheduler.createColdObservable([.next(100, -1)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testTimeout_errorInTimeNeverSubscribesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(250, testError)])
        let ys: TestableObservable<Int> = scheduler.createColdObservable([.next(100, -1)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testTimeout_elementsInTimeNeverSubscribeOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(70, 1), .next(130, 2), .next(240, 3), .next(320, 4), .next(410, 5), .completed(500),
        ])
        let ys = scheduler.createColdObservable([.next(50, -1), .next(200, -2), .next(310, -3), .completed(320)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 3), .next(320, 4), .next(410, 5), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testTimeout_synchronousSourceFinishesBeforeTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(1, 2).timeout(.seconds(5), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(200, 1), .next(200, 2), .completed(200)])
    }

    func testTimeout_zeroDueTimeTimesOutOneTickAfterTheLastElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(201, 1), .next(202, 2)])
        let res = scheduler.start { xs.timeout(.seconds(0), scheduler: scheduler) }
        // A timer due now runs one tick later, after the source's event of that tick.
        XCTAssertEqual(res.events, [.next(201, 1), .next(202, 2), .error(203, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 203)])
    }

    func testTimeout_disposingFromDownstreamCancelsThePendingTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = PublishSubject<Int>()
        let box = ErrorsDisposableBox()
        var events: [Event<Int>] = []
        box.disposable = subject.timeout(.seconds(10), scheduler: scheduler).subscribe { event in
            events.append(event)
            box.disposable?.dispose()
        }
        subject.onNext(1)
        subject.onNext(2)
        scheduler.start()
        XCTAssertEqual(events, [.next(1)])
        XCTAssertFalse(subject.hasObservers)
        box.disposable = nil
    }

    func testTimeout_eventSentFromDownstreamIsDeliveredAfterTheCurrentOne() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = PublishSubject<Int>()
        var log: [String] = []
        let subscription = subject.timeout(.seconds(10), scheduler: scheduler).subscribe(onNext: { value in
            log.append("begin \(value)")
            if value == 1 { subject.onNext(2) }
            log.append("end \(value)")
        })
        subject.onNext(1)
        subscription.dispose()
        XCTAssertEqual(log, ["begin 1", "end 1", "begin 2", "end 2"])
    }
}
