import Rx
import RxTesting
import XCTest

final class SwitchLatestTests: RxTestCase {
    func testSwitchLatest_followsTheNewestInnerAndUnsubscribesThePreviousOne() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([
            .next(10, 101), .next(20, 102), .next(110, 103), .next(120, 104), .next(210, 105), .next(220, 106),
            .completed(230),
        ])
        let ys2 = scheduler.createColdObservable([
            .next(10, 201), .next(20, 202), .next(30, 203), .next(40, 204), .completed(50),
        ])
        let ys3 = scheduler.createColdObservable([
            .next(10, 301), .next(20, 302), .next(30, 303), .next(40, 304), .completed(150),
        ])
        let xs = scheduler.createHotObservable([.next(300, ys1), .next(400, ys2), .next(500, ys3), .completed(600)])
        let res = scheduler.start { xs.switchLatest() }
        XCTAssertEqual(
            res.events,
            [
                .next(310, 101), .next(320, 102), .next(410, 201), .next(420, 202), .next(430, 203), .next(440, 204),
                .next(510, 301), .next(520, 302), .next(530, 303), .next(540, 304), .completed(650),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 600)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(300, 400)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(400, 450)])
        XCTAssertEqual(ys3.subscriptions, [Subscription(500, 650)])
    }

    func testSwitchLatest_completesWithTheSourceWhenNoInnerIsRunning() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .completed(300)])
        let res = scheduler.start { xs.switchLatest() }
        XCTAssertEqual(res.events, [.next(220, 1), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 230)])
    }

    func testSwitchLatest_emptySourceCompletesWhenItCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Observable<Int>> = scheduler.createHotObservable([.completed(250)])
        let res = scheduler.start { xs.switchLatest() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testSwitchLatest_errorFromTheLatestInnerEndsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 1), .error(50, testError)])
        let ys2 = scheduler.createColdObservable([.next(10, 2), .error(20, testError2)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(230, ys2), .completed(500)])
        let res = scheduler.start { xs.switchLatest() }
        XCTAssertEqual(res.events, [.next(220, 1), .next(240, 2), .error(250, testError2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 230)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(230, 250)])
    }

    func testSwitchLatest_errorFromTheSourceEndsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .error(250, testError)])
        let res = scheduler.start { xs.switchLatest() }
        XCTAssertEqual(res.events, [.next(220, 1), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 250)])
    }

    func testSwitchLatest_disposeMidwayUnsubscribesTheSourceAndTheInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        let xs = scheduler.createHotObservable([.next(210, ys1)])
        let res = scheduler.start(disposed: 250) { xs.switchLatest() }
        XCTAssertEqual(res.events, [.next(220, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 250)])
    }

    func testSwitchLatest_innerCompletingDuringItsSubscriptionLetsTheSourceFinish() {
        var results: [Int] = []
        var completed = false
        _ = Observable.of(Observable.just(1), Observable.just(2)).switchLatest()
            .subscribe(onNext: { results.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(results, [1, 2])
        XCTAssertTrue(completed)
    }

    func testSwitchLatest_elementsOfASupersededInnerAreDropped() {
        let outer = PublishSubject<Observable<Int>>()
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        var results: [Int] = []
        let subscription = outer.switchLatest().subscribe(onNext: { results.append($0) })
        outer.onNext(first.asObservable())
        first.onNext(1)
        outer.onNext(second.asObservable())
        XCTAssertFalse(first.hasObservers)
        first.onNext(2)
        second.onNext(3)
        XCTAssertEqual(results, [1, 3])
        subscription.dispose()
        XCTAssertFalse(outer.hasObservers)
        XCTAssertFalse(second.hasObservers)
    }

    func testSwitchLatest_switchingFromInsideTheHandlerDeliversTheNewInnerAfterwards() {
        let outer = PublishSubject<Observable<Int>>()
        let first = PublishSubject<Int>()
        var log: [String] = []
        let subscription = outer.switchLatest()
            .subscribe(onNext: { value in
                log.append("begin \(value)")
                if value == 1 { outer.onNext(Observable.just(20)) }
                log.append("end \(value)")
            })
        outer.onNext(first.asObservable())
        first.onNext(1)
        XCTAssertEqual(log, ["begin 1", "end 1", "begin 20", "end 20"])
        XCTAssertFalse(first.hasObservers)
        subscription.dispose()
        XCTAssertFalse(outer.hasObservers)
    }
}
