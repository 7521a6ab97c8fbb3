import Rx
import RxTesting
import XCTest

/// The scheduler-taking creation operators, tick for tick as RxSwift 6 schedules them on a
/// `TestScheduler` (an action scheduled "now" runs at the next tick).
final class JustAndFromTests: RxTestCase {
    func testJust_onAScheduler_emitsTheElement_thenCompletesOneActionLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.just(7, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 7), .completed(202)])
    }

    func testJust_onAScheduler_disposedAfterTheElement_neverCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        var subscription: Disposable?
        var events: [Event<Int>] = []
        scheduler.scheduleAt(100) {
            subscription = Observable.just(7, scheduler: scheduler).subscribe { events.append($0) }
        }
        // Scheduled before the completion (which the element's action schedules for 102).
        scheduler.scheduleAt(102) { subscription?.dispose() }
        scheduler.start()
        XCTAssertEqual(events.map(\.element), [7], "the completion scheduled for 102 was cancelled")
    }

    func testOf_onAScheduler_oneElementPerAction_thenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(1, 2, 3, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 1), .next(202, 2), .next(203, 3), .completed(204)])
    }

    func testFromArray_onAScheduler_emptyCompletesAtTheFirstAction() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.from([], scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(201)])
    }

    func testFromOptional_rxSwiftSpelling() {
        XCTAssertEqual(
            TestScheduler(initialClock: 0).start { Observable.from(optional: 5) }.events,
            [.next(200, 5), .completed(200)])
        XCTAssertEqual(
            TestScheduler(initialClock: 0).start { Observable<Int>.from(optional: nil) }.events, [.completed(200)],
            "nil: only completed")
        let onScheduler = TestScheduler(initialClock: 0)
        XCTAssertEqual(
            onScheduler.start { Observable.from(optional: 5, scheduler: onScheduler) }.events,
            [.next(201, 5), .completed(202)])
    }

    func testRecorded_namesTheElementTypeWhereTheContextDoesNot() {
        let completed = Recorded.completed(300, Int.self)
        let failed = Recorded.error(300, testError, String.self)
        XCTAssertEqual(completed, Recorded<Event<Int>>(time: 300, value: .completed))
        XCTAssertEqual(failed.time, 300)
        XCTAssertEqual(failed.value.error as? TestError, testError)
        XCTAssertTrue(type(of: failed) == Recorded<Event<String>>.self)
    }

    /// On a scheduler, `from` walks the sequence as each subscription goes, as RxSwift does:
    /// nothing is read when `from` is called, each subscription starts from the beginning,
    /// and `take` stops the walk (a lazy or endless sequence works).
    func testFrom_onAScheduler_walksTheSequencePerSubscription_notWhenCalled() {
        let scheduler = TestScheduler(initialClock: 0)
        let produced = ProducedCount()
        let naturals = (0...).lazy.map { value -> Int in
            produced.value += 1
            return value
        }
        let numbers = Observable.from(naturals, scheduler: scheduler)
        XCTAssertEqual(produced.value, 0)

        let first = scheduler.start { numbers.take(3) }
        XCTAssertEqual(first.events, [.next(201, 0), .next(202, 1), .next(203, 2), .completed(203)])
        XCTAssertEqual(produced.value, 3)

        let second = scheduler.createObserver(Int.self)
        _ = numbers.take(2).subscribe(second)
        scheduler.advanceTo(2_000)
        XCTAssertEqual(second.events.map { $0.value.element }, [0, 1, nil])
    }
}

private final class ProducedCount: @unchecked Sendable {
    var value = 0
}
