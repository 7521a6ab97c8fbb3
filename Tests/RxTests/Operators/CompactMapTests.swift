import Rx
import RxTesting
import XCTest

final class CompactMapTests: RxTestCase {
    func testCompactMap_emitsOnlyNonNilResultsAtTheirTimes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 2), .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(300),
        ])
        let res = scheduler.start { xs.compactMap { $0 % 2 == 0 ? $0 * 10 : nil } }
        XCTAssertEqual(res.events, [.next(220, 20), .next(240, 40), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testCompactMap_allNilResultsLeaveOnlyCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.compactMap { _ -> Int? in nil } }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testCompactMap_thrownErrorEndsSequenceAndDisposesUpstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        let res = scheduler.start {
            xs.compactMap { value -> Int? in
                if value == 2 { throw testError }
                return value
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testCompactMap_sourceErrorPassesThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { xs.compactMap { $0 } }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testCompactMap_disposeUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .completed(300)])
        let res = scheduler.start(disposed: 250) { xs.compactMap { $0 } }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testCompactMap_emptyAndSilentSources() {
        let scheduler = TestScheduler(initialClock: 0)
        let empty = scheduler.start { Observable<Int>.empty().compactMap { $0 } }
        XCTAssertEqual(empty.events, [.completed(200)])

        let silentScheduler = TestScheduler(initialClock: 0)
        let xs = silentScheduler.createHotObservable([Recorded<Event<Int>>]())
        let silent = silentScheduler.start { xs.compactMap { $0 } }
        XCTAssertEqual(silent.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }
}
