import Rx
import RxTesting
import XCTest

final class SwitchIfEmptyTests: RxTestCase {
    private func fallback(_ scheduler: TestScheduler, ending: Recorded<Event<Int>>) -> TestableObservable<Int> {
        scheduler.createColdObservable([.next(10, 0), .next(20, 1), .next(30, 2), .next(40, 3), ending])
    }

    func testIfEmptySwitchTo_nonEmptySourceNeverSubscribesFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.next(205, 1), .completed(210)])
        let other = fallback(scheduler, ending: .completed(50))
        let res = scheduler.start { source.ifEmpty(switchTo: other.asObservable()) }
        XCTAssertEqual(res.events, [.next(205, 1), .completed(210)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(other.subscriptions, [])
    }

    func testIfEmptySwitchTo_nonEmptySourceErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.next(205, 1), .error(210, testError)])
        let other = fallback(scheduler, ending: .completed(50))
        let res = scheduler.start { source.ifEmpty(switchTo: other.asObservable()) }
        XCTAssertEqual(res.events, [.next(205, 1), .error(210, testError)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(other.subscriptions, [])
    }

    func testIfEmptySwitchTo_emptySourceErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.error(210, testError)] as [Recorded<Event<Int>>])
        let other = fallback(scheduler, ending: .completed(50))
        let res = scheduler.start { source.ifEmpty(switchTo: other.asObservable()) }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(other.subscriptions, [])
    }

    func testIfEmptySwitchTo_emptySourceSwitchesToFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.completed(210)] as [Recorded<Event<Int>>])
        let other = fallback(scheduler, ending: .completed(50))
        let res = scheduler.start { source.ifEmpty(switchTo: other.asObservable()) }
        XCTAssertEqual(res.events, [.next(220, 0), .next(230, 1), .next(240, 2), .next(250, 3), .completed(260)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(other.subscriptions, [Subscription(210, 260)])
    }

    func testIfEmptySwitchTo_fallbackErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.completed(210)] as [Recorded<Event<Int>>])
        let other = fallback(scheduler, ending: .error(50, testError))
        let res = scheduler.start { source.ifEmpty(switchTo: other.asObservable()) }
        XCTAssertEqual(
            res.events, [.next(220, 0), .next(230, 1), .next(240, 2), .next(250, 3), .error(260, testError)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(other.subscriptions, [Subscription(210, 260)])
    }

    func testIfEmptySwitchTo_neverSourceNeverSwitches() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.next(0, 0)])
        let other = fallback(scheduler, ending: .completed(50))
        let res = scheduler.start { source.ifEmpty(switchTo: other.asObservable()) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(other.subscriptions, [])
    }

    func testIfEmptySwitchTo_disposeWhileOnFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.completed(210)] as [Recorded<Event<Int>>])
        let other = fallback(scheduler, ending: .completed(50))
        let res = scheduler.start(disposed: 235) { source.ifEmpty(switchTo: other.asObservable()) }
        XCTAssertEqual(res.events, [.next(220, 0), .next(230, 1)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(other.subscriptions, [Subscription(210, 235)])
    }

    func testIfEmptySwitchTo_synchronousSources() {
        var events: [Event<Int>] = []
        _ = Observable<Int>.empty().ifEmpty(switchTo: .of(1, 2)).subscribe { events.append($0) }
        _ = Observable<Int>.just(5).ifEmpty(switchTo: .of(1, 2)).subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(1), .next(2), .completed, .next(5), .completed])
    }
}
