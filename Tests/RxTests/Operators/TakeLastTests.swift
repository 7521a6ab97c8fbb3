import Rx
import RxTesting
import XCTest

final class TakeLastTests: RxTestCase {
    func testTakeLast_emitsTheLastElementsWhenTheSourceCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .next(250, 6),
            .completed(300),
        ])
        let res = scheduler.start { xs.takeLast(3) }
        XCTAssertEqual(res.events, [.next(300, 4), .next(300, 5), .next(300, 6), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testTakeLast_fewerElementsThanCountEmitsThemAll() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.takeLast(5) }
        XCTAssertEqual(res.events, [.next(300, 2), .next(300, 3), .completed(300)])
    }

    func testTakeLast_exactlyCountElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.takeLast(2) }
        XCTAssertEqual(res.events, [.next(300, 2), .next(300, 3), .completed(300)])
    }

    func testTakeLast_ringBufferKeepsOrderAfterWrappingManyTimes() {
        var seen: [Int] = []
        _ = Observable.from(1...103).takeLast(5).subscribe(onNext: { seen.append($0) })
        XCTAssertEqual(seen, [99, 100, 101, 102, 103])
    }

    func testTakeLast_zeroEmitsOnlyCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.takeLast(0) }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testTakeLast_negativeCountFailsWithArgumentOutOfRange() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(300)])
        let res = scheduler.start { xs.takeLast(-1) }
        XCTAssertEqual(res.events, [.error(200, RxError.argumentOutOfRange)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testTakeLast_hugeCountDoesNotReserveMemoryUpFront() {
        var seen: [Int] = []
        _ = Observable.of(1, 2, 3).takeLast(Int.max).subscribe(onNext: { seen.append($0) })
        XCTAssertEqual(seen, [1, 2, 3])
    }

    func testTakeLast_errorDropsTheBuffer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .error(300, testError)])
        let res = scheduler.start { xs.takeLast(2) }
        XCTAssertEqual(res.events, [.error(300, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testTakeLast_emptyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .completed(300)])
        let res = scheduler.start { xs.takeLast(2) }
        XCTAssertEqual(res.events, [.completed(300)])
    }

    func testTakeLast_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3)])
        let res = scheduler.start { xs.takeLast(2) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testTakeLast_disposeBeforeCompletionEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start(disposed: 250) { xs.takeLast(2) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testTakeLast_disposeWhileDrainingStopsAtOnce() {
        let subject = PublishSubject<Int>()
        var seen: [Int] = []
        var completed = false
        let box = FilterDisposableBox()
        box.disposable = subject.takeLast(3).subscribe(
            onNext: { value in
                seen.append(value)
                box.disposable?.dispose()
            },
            onCompleted: { completed = true })
        for value in 1...5 { subject.onNext(value) }
        subject.onCompleted()
        XCTAssertEqual(seen, [3])
        XCTAssertFalse(completed)
        box.disposable = nil
    }
}
