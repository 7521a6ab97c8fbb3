import Rx
import RxTesting
import XCTest

final class CompletableAndThenTests: RxTestCase {
    func testAndThenCompletable_subscribesTheSecondAfterTheFirstCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1: TestableObservable<Never> = scheduler.createHotObservable([.completed(210)])
        let x2: TestableObservable<Never> = scheduler.createHotObservable([.completed(290)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asCompletable()) }
        XCTAssertEqual(res.events, [.completed(290)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(x2.subscriptions, [Subscription(210, 290)])
    }

    func testAndThenCompletable_emptyFirstSubscribesTheSecondAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let x2: TestableObservable<Never> = scheduler.createHotObservable([.completed(290)])
        let res = scheduler.start { Completable.empty().andThen(x2.asCompletable()) }
        XCTAssertEqual(res.events, [.completed(290)])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 290)])
    }

    func testAndThen_firstErrorNeverSubscribesTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1: TestableObservable<Never> = scheduler.createHotObservable([.error(210, testError)])
        let x2 = scheduler.createHotObservable([.next(290, 1), .completed(290)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asSingle()) }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(x2.subscriptions, [])
    }

    func testAndThenSingle_deliversTheSinglesOutcome() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1: TestableObservable<Never> = scheduler.createHotObservable([.completed(210)])
        let x2 = scheduler.createHotObservable([.next(290, 1), .completed(290)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asSingle()) }
        XCTAssertEqual(res.events, [.next(290, 1), .completed(290)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(x2.subscriptions, [Subscription(210, 290)])
    }

    func testAndThenSingle_secondErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1: TestableObservable<Never> = scheduler.createHotObservable([.completed(210)])
        let x2 = scheduler.createHotObservable([Recorded<Event<Int>>.error(290, testError)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asSingle()) }
        XCTAssertEqual(res.events, [.error(290, testError)])
        XCTAssertEqual(x2.subscriptions, [Subscription(210, 290)])
    }

    func testAndThenMaybe_emptyMaybeCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1: TestableObservable<Never> = scheduler.createHotObservable([.completed(210)])
        let x2 = scheduler.createHotObservable([Recorded<Event<Int>>.completed(290)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asMaybe()) }
        XCTAssertEqual(res.events, [.completed(290)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(x2.subscriptions, [Subscription(210, 290)])
    }

    func testAndThenObservable_passesEveryElementThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let x1: TestableObservable<Never> = scheduler.createHotObservable([.completed(210)])
        let x2 = scheduler.createHotObservable([.next(205, 0), .next(280, 1), .next(285, 2), .completed(290)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asObservable()) }
        XCTAssertEqual(res.events, [.next(280, 1), .next(285, 2), .completed(290)])
        XCTAssertEqual(x2.subscriptions, [Subscription(210, 290)])
    }

    func testAndThen_disposalMidwayUnsubscribesTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let x2 = scheduler.createHotObservable([.next(1100, 1)])
        let res = scheduler.start { Completable.empty().andThen(x2.asObservable()) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 1000)])
    }

    func testAndThen_releasesTheFirstCompletableOnceItCompletes() {
        final class Token: Sendable {}
        let scheduler = TestScheduler(initialClock: 0)
        let x: TestableObservable<Never> = scheduler.createHotObservable([.completed(210)])
        weak var weakToken: Token?
        var subscription: Disposable?
        do {
            let token = Token()
            weakToken = token
            subscription = x.asCompletable().do(onCompleted: { _ = token }).andThen(Completable.never()).subscribe()
        }
        XCTAssertNotNil(weakToken)
        scheduler.advanceTo(300)
        XCTAssertNil(weakToken)
        subscription?.dispose()
    }
}
