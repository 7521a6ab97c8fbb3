import Dispatch
import Rx
import RxTesting
import XCTest

final class ConcatMapTests: RxTestCase {
    func testConcatMap_subscribesEachInnerAfterThePreviousCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .next(50, 2), .completed(60)]),
            scheduler.createColdObservable([.next(10, 10), .completed(20)]),
            scheduler.createColdObservable([.next(5, 100), .completed(150)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .next(300, 2), .completed(400)])
        let projectedAt = TransformingLog<TestTime>()
        let res = scheduler.start {
            xs.concatMap { index -> TestableObservable<Int> in
                projectedAt.append(scheduler.clock)
                return inners[index]
            }
        }
        XCTAssertEqual(
            res.events, [.next(220, 1), .next(260, 2), .next(280, 10), .next(305, 100), .completed(450)])
        XCTAssertEqual(projectedAt.values, [210, 220, 300])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 270)])
        XCTAssertEqual(inners[1].subscriptions, [Subscription(270, 290)])
        XCTAssertEqual(inners[2].subscriptions, [Subscription(300, 450)])
    }

    func testConcatMap_waitingInnersRunAfterSourceCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .completed(50)]),
            scheduler.createColdObservable([.next(10, 2), .completed(20)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .completed(230)])
        let res = scheduler.start { xs.concatMap { inners[$0] } }
        XCTAssertEqual(res.events, [.next(220, 1), .next(270, 2), .completed(280)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 260)])
        XCTAssertEqual(inners[1].subscriptions, [Subscription(260, 280)])
    }

    func testConcatMap_innerErrorEndsSequenceBeforeWaitingInnersStart() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .error(30, testError)]),
            scheduler.createColdObservable([.next(10, 2), .completed(20)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .completed(500)])
        let res = scheduler.start { xs.concatMap { inners[$0] } }
        XCTAssertEqual(res.events, [.next(220, 1), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 240)])
        XCTAssertEqual(inners[1].subscriptions, [])
    }

    func testConcatMap_sourceErrorEndsSequenceAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .completed(100)]),
            scheduler.createColdObservable([.next(10, 2), .completed(20)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .error(250, testError)])
        let res = scheduler.start { xs.concatMap { inners[$0] } }
        XCTAssertEqual(res.events, [.next(220, 1), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 250)])
        XCTAssertEqual(inners[1].subscriptions, [])
    }

    func testConcatMap_selectorErrorEndsSequenceEvenForAWaitingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(5, 1), .next(100, 2), .completed(200)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .completed(300)])
        let res = scheduler.start {
            xs.concatMap { value -> TestableObservable<Int> in
                if value == 1 { throw testError }
                return inner
            }
        }
        XCTAssertEqual(res.events, [.next(215, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 220)])
    }

    func testConcatMap_disposeUnsubscribesRunningInnerAndDropsWaitingOnes() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .completed(100)]),
            scheduler.createColdObservable([.next(10, 2), .completed(20)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(220, 1), .completed(500)])
        let res = scheduler.start(disposed: 250) { xs.concatMap { inners[$0] } }
        XCTAssertEqual(res.events, [.next(220, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 250)])
        XCTAssertEqual(inners[1].subscriptions, [])
    }

    func testConcatMap_emptySourceCompletesAtSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.empty().concatMap { Observable.just($0) } }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testConcatMap_synchronousAndTrampolinedInnersKeepOrder() {
        var values: [Int] = []
        var completions = 0
        _ = Observable.from([1, 2, 3]).concatMap { Observable.from([$0, $0 * 10]) }.subscribe(
            onNext: { values.append($0) }, onCompleted: { completions += 1 })
        XCTAssertEqual(values, [1, 10, 2, 20, 3, 30])
        XCTAssertEqual(completions, 1)
    }

    func testConcatMap_longQueueOfSynchronousInnersDrainsWithoutRecursion() {
        let source = PublishSubject<Int>()
        let gate = PublishSubject<Int>()
        var count = 0
        var sum = 0
        var completions = 0
        let subscription = source.concatMap { $0 == 0 ? gate.asObservable() : Observable.just($0) }.subscribe(
            onNext: {
                count += 1
                sum += $0
            },
            onCompleted: { completions += 1 })
        source.onNext(0)
        for value in 1...100_000 { source.onNext(value) }
        source.onCompleted()
        XCTAssertEqual(count, 0)
        // Each waiting `just` completes inside its own subscribe; a recursive hand-over would
        // nest 100 000 frames deep here.
        gate.onCompleted()
        XCTAssertEqual(count, 100_000)
        XCTAssertEqual(sum, (1...100_000).reduce(0, +))
        XCTAssertEqual(completions, 1)
        subscription.dispose()
    }

    func testConcatMap_innersCompletingOnOtherThreadsKeepSourceOrder() {
        let elements = 2_000
        let source = PublishSubject<Int>()
        let probe = TransformingConcurrencyProbe()
        let completed = expectation(description: "completed")
        var values: [Int] = []
        let subscription = source.concatMap { value in
            Observable<Int>.create { observer in
                DispatchQueue.global().async {
                    observer.onNext(value)
                    observer.onCompleted()
                }
                return Disposables.create()
            }
        }.subscribe(
            onNext: { value in
                probe.enter()
                values.append(value)
                probe.leave()
            },
            onCompleted: { completed.fulfill() })
        DispatchQueue.global().async {
            for value in 1...elements { source.onNext(value) }
            source.onCompleted()
        }
        wait(for: [completed], timeout: 10)
        XCTAssertEqual(values, Array(1...elements))
        XCTAssertEqual(probe.maximumInside, 1)
        subscription.dispose()
    }
}
