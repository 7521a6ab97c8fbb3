import Rx
import RxTesting
import XCTest

final class DefaultIfEmptyTests: RxTestCase {
    func testIfEmptyDefault_emptySourceEmitsTheDefault() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(201)])
        let res = scheduler.start { xs.ifEmpty(default: 11) }
        XCTAssertEqual(res.events, [.next(201, 11), .completed(201)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 201)])
    }

    func testIfEmptyDefault_nonEmptySourcePassesThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(201, 2), .next(202, 3), .completed(203)])
        let res = scheduler.start { xs.ifEmpty(default: 11) }
        XCTAssertEqual(res.events, [.next(201, 2), .next(202, 3), .completed(203)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 203)])
    }

    func testIfEmptyDefault_errorPassesThroughWithoutDefault() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .error(201, testError)])
        let res = scheduler.start { xs.ifEmpty(default: 11) }
        XCTAssertEqual(res.events, [.error(201, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 201)])
    }

    func testIfEmptyDefault_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.ifEmpty(default: 11) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testIfEmptyDefault_synchronousEmptySource() {
        var events: [Event<Int>] = []
        _ = Observable<Int>.empty().ifEmpty(default: 11).subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(11), .completed])
    }
}
