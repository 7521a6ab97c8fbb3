import Rx
import RxTesting
import XCTest

final class SkipWhileTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(90, -1), .next(110, -1), .next(210, 2), .next(260, 5), .next(290, 13), .next(320, 3),
            .next(350, 7), .next(390, 4), .completed(600),
        ])
    }

    func testSkipWhile_forwardsFromTheFirstFailingElementOn() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler)
        let res = scheduler.start { xs.skip(while: { $0 < 10 }) }
        // 3, 7 and 4 pass the predicate again but are no longer tested.
        XCTAssertEqual(res.events, [.next(290, 13), .next(320, 3), .next(350, 7), .next(390, 4), .completed(600)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 600)])
    }

    func testSkipWhile_predicateIsNotCalledOnceForwarding() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler)
        let calls = FilterCallCounter()
        _ = scheduler.start {
            xs.skip(while: { value in
                calls.increment()
                return value < 10
            })
        }
        XCTAssertEqual(calls.value, 3)
    }

    func testSkipWhile_alwaysTrueOnlyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler)
        let res = scheduler.start { xs.skip(while: { _ in true }) }
        XCTAssertEqual(res.events, [.completed(600)])
    }

    func testSkipWhile_alwaysFalseForwardsEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler)
        let res = scheduler.start { xs.skip(while: { _ in false }) }
        XCTAssertEqual(res.events.count, 7)
        XCTAssertEqual(res.events.first, .next(210, 2))
    }

    func testSkipWhile_sourceErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(260, 5), .error(270, testError)])
        let res = scheduler.start { xs.skip(while: { $0 < 10 }) }
        XCTAssertEqual(res.events, [.error(270, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 270)])
    }

    func testSkipWhile_thrownErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler)
        let res = scheduler.start {
            xs.skip(while: { value -> Bool in
                if value == 5 { throw testError }
                return true
            })
        }
        XCTAssertEqual(res.events, [.error(260, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
    }

    func testSkipWhile_disposeMidwayUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler)
        let res = scheduler.start(disposed: 330) { xs.skip(while: { $0 < 10 }) }
        XCTAssertEqual(res.events, [.next(290, 13), .next(320, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 330)])
    }

    @available(*, deprecated)
    func testSkipWhileDeprecated_isSkipWhile() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler)
        let res = scheduler.start { xs.skipWhile { $0 < 10 } }
        XCTAssertEqual(res.events.first, .next(290, 13))
    }
}
