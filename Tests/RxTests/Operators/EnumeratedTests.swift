import Rx
import RxTesting
import XCTest

final class EnumeratedTests: RxTestCase {
    func testEnumerated_pairsElementsWithIndicesFromZero() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, "z"), .next(210, "a"), .next(220, "b"), .next(230, "c"), .completed(250),
        ])
        let res = scheduler.start { xs.enumerated().map { "\($0.index) \($0.element)" } }
        XCTAssertEqual(res.events, [.next(210, "0 a"), .next(220, "1 b"), .next(230, "2 c"), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testEnumerated_eachSubscriptionCountsFromZero() {
        let enumerated = Observable.of("a", "b").enumerated()
        var first: [Int] = []
        var second: [Int] = []
        _ = enumerated.subscribe(onNext: { first.append($0.index) })
        _ = enumerated.subscribe(onNext: { second.append($0.index) })
        XCTAssertEqual(first, [0, 1])
        XCTAssertEqual(second, [0, 1])
    }

    func testEnumerated_sourceErrorPassesThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "a"), .error(220, testError)])
        let res = scheduler.start { xs.enumerated().map { "\($0.index) \($0.element)" } }
        XCTAssertEqual(res.events, [.next(210, "0 a"), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testEnumerated_emptySourceOnlyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<String>.empty().enumerated().map { $0.index } }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testEnumerated_disposeUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, "a"), .next(260, "b")])
        let res = scheduler.start(disposed: 250) { xs.enumerated().map { $0.index } }
        XCTAssertEqual(res.events, [.next(210, 0)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }
}
