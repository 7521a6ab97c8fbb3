import Rx
import RxTesting
import XCTest

final class MapTests: RxTestCase {
    func testMap_transformsEachElementAtItsTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(240, 3), .completed(300),
        ])
        let res = scheduler.start { xs.map { $0 * 10 } }
        XCTAssertEqual(res.events, [.next(210, 20), .next(240, 30), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testMap_thrownErrorEndsSequenceAndDisposesUpstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3)])
        let res = scheduler.start {
            xs.map { value -> Int in
                if value == 2 { throw testError }
                return value
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testMap_disposeAtDefaultTimeUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(2000, 2)])
        let res = scheduler.start { xs.map { $0 + 1 } }
        XCTAssertEqual(res.events, [.next(210, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testDisposeInsideHandler_stopsDeliveryAtOnce() {
        let subject = PublishSubject<Int>()
        var seen: [Int] = []
        let box = DisposableBox()
        box.disposable = subject.map { $0 * 2 }.subscribe(onNext: { value in
            seen.append(value)
            if value == 4 { box.disposable?.dispose() }
        })
        for value in 1...5 { subject.onNext(value) }
        XCTAssertEqual(seen, [2, 4])
        XCTAssertFalse(subject.hasObservers)
        box.disposable = nil
    }

    func testFilterAndMap_sumMatchesLoop() {
        var sum = 0
        var count = 0
        _ = Observable.from(0..<10_000).map { $0 + 1 }.filter { $0 % 2 == 0 }.subscribe(onNext: {
            sum += $0
            count += 1
        })
        XCTAssertEqual(count, 5_000)
        XCTAssertEqual(sum, (1...10_000).filter { $0 % 2 == 0 }.reduce(0, +))
    }
}

private final class DisposableBox {
    var disposable: Disposable?
}
