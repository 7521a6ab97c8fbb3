import Rx
import RxTesting
import XCTest

final class ToArrayTests: RxTestCase {
    func testToArray_collectsEveryElementAtCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
        let res = scheduler.start { xs.toArray() }
        XCTAssertEqual(res.events, [.next(250, [2, 3, 4, 5]), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testToArray_emptySourceEmitsEmptyArray() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let res = scheduler.start { xs.toArray() }
        XCTAssertEqual(res.events, [.next(250, []), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testToArray_errorDropsCollectedElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .error(230, testError)])
        let res = scheduler.start { xs.toArray() }
        XCTAssertEqual(res.events, [.error(230, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testToArray_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2)])
        let res = scheduler.start { xs.toArray() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testToArray_eachSubscriptionCollectsItsOwnElements() {
        let numbers = Observable.of(1, 2, 3).toArray()
        var results: [[Int]] = []
        _ = numbers.subscribe(onSuccess: { results.append($0) })
        _ = numbers.subscribe(onSuccess: { results.append($0) })
        XCTAssertEqual(results, [[1, 2, 3], [1, 2, 3]])
    }
}
