import Rx
import RxTesting
import XCTest

final class TimerTests: RxTestCase {
    func testTimer_withoutPeriodEmitsZeroAndCompletesAtDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.timer(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(300, 0), .completed(300)])
    }

    func testTimer_withPeriodCountsAfterDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 500) {
            Observable<Int>.timer(.seconds(50), period: .seconds(100), scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(250, 0), .next(350, 1), .next(450, 2)])
    }

    func testTimer_neverDueTimeNeverFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.timer(.never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
    }

    func testTimer_neverPeriodEmitsOnceWithoutCompleting() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.timer(.seconds(10), period: .never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 0)])
    }

    func testInterval_emitsEachPeriod() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int64>.interval(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(
            res.events,
            [.next(300, 0), .next(400, 1), .next(500, 2), .next(600, 3), .next(700, 4), .next(800, 5), .next(900, 6)])
    }

    func testInterval_zeroPeriodEmitsEveryTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 210) { Observable<Int64>.interval(.seconds(0), scheduler: scheduler) }
        XCTAssertEqual(
            res.events,
            [
                .next(201, 0), .next(202, 1), .next(203, 2), .next(204, 3), .next(205, 4), .next(206, 5), .next(207, 6),
                .next(208, 7), .next(209, 8),
            ])
    }

    func testInterval_disposedBeforeFirstPeriodEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int64>.interval(.seconds(1000), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
    }

    func testInterval_disposingFromOnNextStopsTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        var received: [Int] = []
        let subscription = TraitsBox<Disposable?>(nil)
        subscription.value = Observable<Int>.interval(.seconds(10), scheduler: scheduler).subscribe(onNext: {
            received.append($0)
            if $0 == 2 { subscription.value?.dispose() }
        })
        scheduler.start()
        XCTAssertEqual(received, [0, 1, 2])
        XCTAssertEqual(scheduler.clock, 30)
        subscription.value = nil
    }
}
