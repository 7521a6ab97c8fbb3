import Rx
import RxTesting
import XCTest

final class FlatMapLatestTests: RxTestCase {
    func testFlatMapLatest_switchesToNewestInnerAndDisposesPrevious() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .next(30, 2), .next(50, 3), .completed(200)]),
            scheduler.createColdObservable([.next(10, 10), .completed(20)]),
            scheduler.createColdObservable([.next(20, 20), .next(150, 21), .completed(250)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(250, 1), .next(300, 2), .completed(400)])
        let res = scheduler.start { xs.flatMapLatest { inners[$0] } }
        XCTAssertEqual(
            res.events,
            [.next(220, 1), .next(240, 2), .next(260, 10), .next(320, 20), .next(450, 21), .completed(550)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 250)])
        XCTAssertEqual(inners[1].subscriptions, [Subscription(250, 270)])
        XCTAssertEqual(inners[2].subscriptions, [Subscription(300, 550)])
    }

    func testFlatMapLatest_completesWithSourceWhenLatestAlreadyCompleted() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let xs = scheduler.createHotObservable([.next(210, 0), .completed(300)])
        let res = scheduler.start { xs.flatMapLatest { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 230)])
    }

    func testFlatMapLatest_latestInnerErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let inners = [
            scheduler.createColdObservable([.next(10, 1), .error(100, testError2)]),
            scheduler.createColdObservable([.next(10, 10), .error(20, testError)]),
        ]
        let xs = scheduler.createHotObservable([.next(210, 0), .next(250, 1), .completed(500)])
        let res = scheduler.start { xs.flatMapLatest { inners[$0] } }
        // The first inner's error (due at 310) never happens: it was disposed at 250.
        XCTAssertEqual(res.events, [.next(220, 1), .next(260, 10), .error(270, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 270)])
        XCTAssertEqual(inners[0].subscriptions, [Subscription(210, 250)])
        XCTAssertEqual(inners[1].subscriptions, [Subscription(250, 270)])
    }

    func testFlatMapLatest_sourceErrorDisposesLatestInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        let xs = scheduler.createHotObservable([.next(210, 0), .error(250, testError)])
        let res = scheduler.start { xs.flatMapLatest { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 250)])
    }

    func testFlatMapLatest_selectorErrorEndsSequenceAndDisposesLatestInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(240, 1), .completed(300)])
        let res = scheduler.start {
            xs.flatMapLatest { value -> TestableObservable<Int> in
                if value == 1 { throw testError }
                return inner
            }
        }
        XCTAssertEqual(res.events, [.next(220, 1), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 240)])
    }

    func testFlatMapLatest_disposeUnsubscribesSourceAndLatestInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let inner = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        let xs = scheduler.createHotObservable([.next(210, 0), .next(230, 1), .completed(500)])
        let res = scheduler.start(disposed: 260) { xs.flatMapLatest { _ in inner } }
        XCTAssertEqual(res.events, [.next(220, 1), .next(240, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
        XCTAssertEqual(inner.subscriptions, [Subscription(210, 230), Subscription(230, 260)])
    }

    func testFlatMapLatest_emptySourceCompletesAtSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.empty().flatMapLatest { Observable.just($0) } }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testFlatMapLatest_trampolinedInnersAreCancelledBeforeTheyStart() {
        var values: [Int] = []
        var completions = 0
        _ = Observable.from([1, 2, 3]).flatMapLatest { Observable.from([$0, $0 * 10]) }.subscribe(
            onNext: { values.append($0) }, onCompleted: { completions += 1 })
        XCTAssertEqual(values, [3, 30])
        XCTAssertEqual(completions, 1)
    }

    func testFlatMapLatest_switchFromHandlerSilencesTheReplacedInnerAtOnce() {
        let source = PublishSubject<Int>()
        let first = Observable<Int>.create { observer in
            for value in 1...3 { observer.onNext(value) }
            observer.onCompleted()
            return Disposables.create()
        }
        var values: [Int] = []
        var completions = 0
        let subscription = source.flatMapLatest { $0 == 0 ? first : Observable.just(100) }.subscribe(
            onNext: { value in
                values.append(value)
                if value == 1 { source.onNext(1) }
            },
            onCompleted: { completions += 1 })
        source.onNext(0)
        source.onCompleted()
        XCTAssertEqual(values, [1, 100])
        XCTAssertEqual(completions, 1)
        subscription.dispose()
    }
}
