import Rx
import RxTesting
import XCTest

final class MergeTests: RxTestCase {
    func testMerge_interleavesInnerElementsAndCompletesAfterTheSourceAndEveryInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(5, 1), .next(15, 2), .completed(20)])
        let ys2 = scheduler.createColdObservable([.next(5, 10), .next(25, 20), .completed(30)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(220, ys2), .completed(300)])
        let res = scheduler.start { xs.merge() }
        XCTAssertEqual(res.events, [.next(215, 1), .next(225, 2), .next(225, 10), .next(245, 20), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 230)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(220, 250)])
    }

    func testMerge_sourceCompletingFirstIsUnsubscribedAtOnceAndInnersRunOn() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(50, 1), .completed(100)])
        let ys2 = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(220, ys2), .completed(230)])
        let res = scheduler.start { xs.merge() }
        XCTAssertEqual(res.events, [.next(230, 2), .next(260, 1), .completed(310)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 310)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(220, 240)])
    }

    func testMerge_innerErrorEndsAtOnceAndUnsubscribesEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(5, 1), .next(100, 2)])
        let ys2 = scheduler.createColdObservable([.next(5, 10), .error(20, testError)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(220, ys2), .next(400, ys1)])
        let res = scheduler.start { xs.merge() }
        XCTAssertEqual(res.events, [.next(215, 1), .next(225, 10), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 240)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(220, 240)])
    }

    func testMerge_sourceErrorEndsAtOnceAndUnsubscribesEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(5, 1), .next(100, 2)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .error(250, testError)])
        let res = scheduler.start { xs.merge() }
        XCTAssertEqual(res.events, [.next(215, 1), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 250)])
    }

    func testMerge_disposeMidwayUnsubscribesEverything() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(5, 1), .next(100, 2)])
        let ys2 = scheduler.createColdObservable([.next(5, 10), .next(100, 20)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(220, ys2)])
        let res = scheduler.start(disposed: 300) { xs.merge() }
        XCTAssertEqual(res.events, [.next(215, 1), .next(225, 10)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 300)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(220, 300)])
    }

    func testMerge_emptySourceCompletesWhenItCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Observable<Int>> = scheduler.createHotObservable([.completed(250)])
        let res = scheduler.start { xs.merge() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testMerge_innersOnTheTrampolineEmitAfterTheWorkInProgress() {
        // `of` emits on the current-thread trampoline, so its elements come after the
        // outer loop; `just` emits during its subscription. RxSwift behaves the same.
        var results: [Int] = []
        var completed = false
        _ = Observable.of(Observable.of(1, 2), Observable.just(3), Observable.of(4, 5)).merge()
            .subscribe(onNext: { results.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(results, [3, 1, 2, 4, 5])
        XCTAssertTrue(completed)
    }

    // MARK: maxConcurrent

    func testMergeMaxConcurrent_innersBeyondTheLimitWaitTheirTurnInOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(5, 1), .next(15, 2), .completed(50)])
        let ys2 = scheduler.createColdObservable([.next(5, 10), .completed(20)])
        let ys3 = scheduler.createColdObservable([.next(5, 100), .completed(10)])
        let ys4 = scheduler.createColdObservable([.next(5, 1000), .completed(10)])
        let xs = scheduler.createHotObservable([
            .next(210, ys1), .next(220, ys2), .next(230, ys3), .next(235, ys4), .completed(240),
        ])
        let res = scheduler.start { xs.merge(maxConcurrent: 2) }
        XCTAssertEqual(
            res.events,
            [.next(215, 1), .next(225, 2), .next(225, 10), .next(245, 100), .next(255, 1000), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 260)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(220, 240)])
        XCTAssertEqual(ys3.subscriptions, [Subscription(240, 250)])
        XCTAssertEqual(ys4.subscriptions, [Subscription(250, 260)])
    }

    func testMergeMaxConcurrent_sourceCompletingWithNothingActiveCompletesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(5, 1), .completed(10)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .completed(250)])
        let res = scheduler.start { xs.merge(maxConcurrent: 1) }
        XCTAssertEqual(res.events, [.next(215, 1), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 220)])
    }

    func testMergeMaxConcurrent_disposeMidwayDropsTheWaitingInners() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1 = scheduler.createColdObservable([.next(5, 1), .next(500, 2)])
        let ys2 = scheduler.createColdObservable([.next(5, 10)])
        let xs = scheduler.createHotObservable([.next(210, ys1), .next(220, ys2)])
        let res = scheduler.start(disposed: 300) { xs.merge(maxConcurrent: 1) }
        XCTAssertEqual(res.events, [.next(215, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(210, 300)])
        XCTAssertEqual(ys2.subscriptions, [])
    }

    func testMergeMaxConcurrent_zeroOrNegativeFailsWithArgumentOutOfRange() {
        for limit in [0, -1, Int.min] {
            let scheduler = TestScheduler(initialClock: 0)
            let ys1 = scheduler.createColdObservable([.next(5, 1)])
            let xs = scheduler.createHotObservable([.next(210, ys1)])
            let res = scheduler.start { xs.merge(maxConcurrent: limit) }
            XCTAssertEqual(res.events, [.error(200, RxError.argumentOutOfRange)])
            XCTAssertEqual(xs.subscriptions, [])
        }
    }

    func testMergeMaxConcurrent_manySynchronousWaitingInnersStartInALoopNotByRecursion() {
        let outer = PublishSubject<Observable<Int>>()
        let first = PublishSubject<Int>()
        var sum = 0
        var completed = false
        let subscription = outer.merge(maxConcurrent: 1)
            .subscribe(onNext: { sum += $0 }, onCompleted: { completed = true })
        outer.onNext(first.asObservable())
        let count = 50_000
        for value in 1...count { outer.onNext(Observable.just(value)) }
        outer.onCompleted()
        XCTAssertEqual(sum, 0)
        first.onCompleted()
        XCTAssertEqual(sum, count * (count + 1) / 2)
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    // MARK: Static merge

    func testMergeStatic_arrayVariadicAndCollectionMergeAsElementsArrive() {
        let factories: [(TestableObservable<Int>, TestableObservable<Int>) -> Observable<Int>] = [
            { Observable.merge([$0.asObservable(), $1.asObservable()]) },
            { Observable.merge($0.asObservable(), $1.asObservable()) },
            { Observable.merge(ArraySlice([$0.asObservable(), $1.asObservable()])) },
        ]
        for factory in factories {
            let scheduler = TestScheduler(initialClock: 0)
            let xs = scheduler.createHotObservable([.next(150, 0), .next(210, 1), .next(230, 3), .completed(240)])
            let ys = scheduler.createHotObservable([.next(220, 2), .next(250, 4), .completed(260)])
            let res = scheduler.start { factory(xs, ys) }
            XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .next(250, 4), .completed(260)])
            XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
            XCTAssertEqual(ys.subscriptions, [Subscription(200, 260)])
        }
    }

    func testMergeStatic_emptyArrayCompletesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.merge([]) }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testMergeStatic_errorEndsAtOnceAndUnsubscribesTheOthers() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let ys = scheduler.createHotObservable([.next(215, 2), .next(230, 3)])
        let res = scheduler.start { Observable.merge(xs.asObservable(), ys.asObservable()) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(215, 2), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 220)])
    }

    func testMergeStatic_synchronousErrorLeavesLaterSourcesUnsubscribedAsRxSwiftDoes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let res = scheduler.start { Observable.merge(Observable<Int>.error(testError), xs.asObservable()) }
        XCTAssertEqual(res.events, [.error(200, testError)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testMerge_reentrantElementIsDeliveredAfterTheCurrentOneNotInside() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        var log: [String] = []
        let subscription = Observable.merge(first.asObservable(), second.asObservable())
            .subscribe(onNext: { value in
                log.append("begin \(value)")
                if value == 1 { second.onNext(2) }
                log.append("end \(value)")
            })
        first.onNext(1)
        XCTAssertEqual(log, ["begin 1", "end 1", "begin 2", "end 2"])
        subscription.dispose()
        XCTAssertFalse(first.hasObservers)
        XCTAssertFalse(second.hasObservers)
    }
}
