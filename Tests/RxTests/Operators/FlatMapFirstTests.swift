import Rx
import RxTesting
import XCTest

final class FlatMapFirstTests: RxTestCase {
    func testFlatMapFirst_dropsElementsWhileAnInnerSequenceRunsWithoutProjectingThem() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .next(50, 2), .completed(60)]),
            scheduler.createColdObservable([.next(10, 10), .completed(20)]),
            scheduler.createColdObservable([.next(10, 20), .completed(20)]),
            scheduler.createColdObservable([.next(20, 30), .completed(150)]),
        ]
        let xs = scheduler.createHotObservable([
            .next(210, 0), .next(230, 1), .next(250, 2), .next(300, 3), .completed(400),
        ])
        let projectedAt = TransformingLog<TestTime>()
        let res = scheduler.start {
            xs.flatMapFirst { index -> TestableObservable<Int> in
                projectedAt.append(scheduler.clock)
                return inners[index]
            }
        }
        XCTAssertEqual(res.events, [.next(220, 1), .next(260, 2), .next(320, 30), .completed(450)])
        XCTAssertEqual(projectedAt.values, [210, 300])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 270)])
        XCTAssertEqual(inners[1].subscriptions, [])
        XCTAssertEqual(inners[2].subscriptions, [])
        XCTAssertEqual(inners[3].subscriptions, [Subscription(300, 450)])
    }

    func testFlatMapFirst_completesWithSourceWhenNothingRuns() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let xs = scheduler.createHotObservable([.next(210, 0), .completed(300)])
        let res = scheduler.start { xs.flatMapFirst { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 230)])
    }

    func testFlatMapFirst_innerErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .error(30, testError)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .completed(500)])
        let res = scheduler.start { xs.flatMapFirst { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 240)])
    }

    func testFlatMapFirst_sourceErrorDisposesRunningInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .next(100, 2), .completed(200)])
        let xs = scheduler.createHotObservable([.next(210, 0), .error(250, testError)])
        let res = scheduler.start { xs.flatMapFirst { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 250)])
    }

    func testFlatMapFirst_selectorErrorOnAProjectedElementEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .completed(30)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .next(300, 2), .completed(400)])
        let res = scheduler.start {
            xs.flatMapFirst { value -> TestableObservable<Int> in
                // 1 arrives while the first inner runs, so only 2 reaches the selector.
                if value > 0 { throw testError }
                return inner
            }
        }
        XCTAssertEqual(res.events, [.next(220, 1), .error(300, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 240)])
    }

    func testFlatMapFirst_disposeUnsubscribesSourceAndRunningInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .next(100, 2), .completed(200)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .completed(500)])
        let res = scheduler.start(disposed: 250) { xs.flatMapFirst { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 250)])
    }

    func testFlatMapFirst_emptySourceCompletesAtSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.empty().flatMapFirst { Observable.just($0) } }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testFlatMapFirst_synchronousInnersFinishBeforeTheNextElement() {
        var justValues: [Int] = []
        _ = Observable.from([1, 2, 3]).flatMapFirst { Observable.just($0) }.subscribe(onNext: {
            justValues.append($0)
        })
        XCTAssertEqual(justValues, [1, 2, 3])

        // A `from` inner waits on the trampoline, so it is still running when 2 and 3 arrive.
        var fromValues: [Int] = []
        var completions = 0
        _ = Observable.from([1, 2, 3]).flatMapFirst { Observable.from([$0, $0 * 10]) }.subscribe(
            onNext: { fromValues.append($0) }, onCompleted: { completions += 1 })
        XCTAssertEqual(fromValues, [1, 10])
        XCTAssertEqual(completions, 1)
    }
}
