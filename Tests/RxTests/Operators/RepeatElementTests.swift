import Rx
import RxTesting
import XCTest

final class RepeatElementTests: RxTestCase {
    func testRepeatElement_emitsOnePerSchedulerStepUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 207) { Observable.repeatElement(42, scheduler: scheduler) }
        XCTAssertEqual(
            res.events,
            [.next(201, 42), .next(202, 42), .next(203, 42), .next(204, 42), .next(205, 42), .next(206, 42)])
    }

    func testRepeatElement_infiniteLoopEndsWhenDisposedFromOnNext() {
        let count = TraitsBox(0)
        let subscription = TraitsBox<Disposable?>(nil)
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            subscription.value = Observable.repeatElement(1).map { $0 * 2 }.subscribe(onNext: { _ in
                count.value += 1
                if count.value == 3 { subscription.value?.dispose() }
            })
            return Disposables.create()
        }
        XCTAssertEqual(count.value, 3)
        subscription.value = nil
    }

    func testRepeatElement_infiniteLoopEndsWhenDownstreamDisposesUpstream() {
        var results: [String] = []
        _ = Observable.repeatElement(5).first().subscribe(onSuccess: { results.append("\(String(describing: $0))") })
        XCTAssertEqual(results, ["Optional(5)"])
    }

    func testRepeatElement_loopDoesNotStartBeforeTheChainIsWired() {
        // The loop runs on the trampoline: subscribing inside another subscription's
        // handler queues it, so the outer handler returns first.
        var log: [String] = []
        let subscription = TraitsBox<Disposable?>(nil)
        _ = Observable.just(0).subscribe(onNext: { _ in
            subscription.value = Observable.repeatElement(7).subscribe(onNext: { value in
                log.append("inner \(value)")
                if log.count == 3 { subscription.value?.dispose() }
            })
            log.append("outer returns")
        })
        XCTAssertEqual(log, ["outer returns", "inner 7", "inner 7"])
        subscription.value = nil
    }
}
