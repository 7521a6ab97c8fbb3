import Rx
import RxTesting
import XCTest

final class AmbTests: RxTestCase {
    func testAmb_neverAndNever_neverEmit() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1 = scheduler.createHotObservable([.next(150, 1)])
        let x2 = scheduler.createHotObservable([.next(150, 2)])
        let res = scheduler.start { x1.amb(x2) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 1000)])
    }

    func testAmb_firstToEmitWinsAndTheOtherIsUnsubscribedAtThatMoment() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1 = scheduler.createHotObservable([.next(220, 1), .next(240, 3), .completed(300)])
        let x2 = scheduler.createHotObservable([.next(210, 2), .next(230, 4), .completed(250)])
        let res = scheduler.start { x1.amb(x2) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(230, 4), .completed(250)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 250)])
    }

    func testAmb_anErrorCanWinTheRace() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1 = scheduler.createHotObservable([.next(220, 1), .completed(300)])
        let x2: TestableObservable<Int> = scheduler.createHotObservable([.error(210, testError)])
        let res = scheduler.start { x1.amb(x2) }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 210)])
    }

    func testAmb_aCompletionCanWinTheRace() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1: TestableObservable<Int> = scheduler.createHotObservable([.completed(215)])
        let x2 = scheduler.createHotObservable([.next(220, 2), .completed(300)])
        let res = scheduler.start { x1.amb(x2) }
        XCTAssertEqual(res.events, [.completed(215)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 215)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 215)])
    }

    func testAmb_laterErrorOfTheLoserIsIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1 = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let x2: TestableObservable<Int> = scheduler.createHotObservable([.error(220, testError)])
        let res = scheduler.start { x1.amb(x2) }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(300)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 210)])
    }

    func testAmbStatic_theFirstOfManyWinsAndEveryOtherIsUnsubscribed() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1 = scheduler.createHotObservable([.next(240, 1), .completed(300)])
        let x2 = scheduler.createHotObservable([.next(220, 2), .next(260, 20), .completed(280)])
        let x3 = scheduler.createHotObservable([.next(230, 3), .completed(300)])
        let res = scheduler.start { Observable.amb([x1, x2, x3].map { $0.asObservable() }) }
        XCTAssertEqual(res.events, [.next(220, 2), .next(260, 20), .completed(280)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 280)])
        XCTAssertEqual(x3.subscriptions, [Subscription(200, 220)])
    }

    func testAmbStatic_noSourcesNeverEmits() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.amb([]) }
        XCTAssertEqual(res.events, [])
    }

    func testAmb_disposeMidwayUnsubscribesEverySource() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1 = scheduler.createHotObservable([.next(300, 1)])
        let x2 = scheduler.createHotObservable([.next(400, 2)])
        let res = scheduler.start(disposed: 250) { x1.amb(x2) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 250)])
    }

    func testAmb_synchronousWinnerStillSubscribesTheOthersBrieflyAsRxSwiftDoes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2)])
        let res = scheduler.start { Observable.just(1).amb(xs) }
        XCTAssertEqual(res.events, [.next(200, 1), .completed(200)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 200)])
    }
}
