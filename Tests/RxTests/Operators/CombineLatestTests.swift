import Rx
import RxTesting
import XCTest

final class CombineLatestTests: RxTestCase {
    private func sum(_ first: TestableObservable<Int>, _ second: TestableObservable<Int>) -> [Observable<Int>] {
        [
            Observable.combineLatest(first, second) { $0 + $1 },
            Observable.combineLatest(first, second).map { $0 + $1 },
            Observable.combineLatest([first, second]) { $0.reduce(0, +) },
            Observable.combineLatest([first, second]).map { $0.reduce(0, +) },
        ]
    }

    func testCombineLatest_neverAndEmpty_neverEmit() {
        for index in 0..<4 {
            let scheduler = TestScheduler(initialClock: 0)
            let never = scheduler.createHotObservable([.next(150, 1)])
            let empty = scheduler.createHotObservable([.next(150, 1), .completed(210)])
            let res = scheduler.start { self.sum(never, empty)[index] }
            XCTAssertEqual(res.events, [])
            XCTAssertEqual(never.subscriptions, [Subscription(200, 1000)])
            XCTAssertEqual(empty.subscriptions, [Subscription(200, 210)])
        }
    }

    func testCombineLatest_completesWhenASourceEmitsAfterTheOtherEndedEmpty() {
        for index in 0..<4 {
            let scheduler = TestScheduler(initialClock: 0)
            let empty = scheduler.createHotObservable([.next(150, 1), .completed(210)])
            let other = scheduler.createHotObservable([.next(150, 1), .next(215, 2), .completed(220)])
            let res = scheduler.start { self.sum(empty, other)[index] }
            XCTAssertEqual(res.events, [.completed(215)])
            XCTAssertEqual(empty.subscriptions, [Subscription(200, 210)])
            XCTAssertEqual(other.subscriptions, [Subscription(200, 215)])
        }
    }

    func testCombineLatest_completesOnlyWhenEverySourceHasCompleted() {
        for index in 0..<4 {
            let scheduler = TestScheduler(initialClock: 0)
            let first = scheduler.createHotObservable([.next(150, 1), .next(215, 2), .completed(230)])
            let second = scheduler.createHotObservable([.next(150, 1), .next(220, 3), .completed(240)])
            let res = scheduler.start { self.sum(first, second)[index] }
            XCTAssertEqual(res.events, [.next(220, 5), .completed(240)])
            XCTAssertEqual(first.subscriptions, [Subscription(200, 230)])
            XCTAssertEqual(second.subscriptions, [Subscription(200, 240)])
        }
    }

    func testCombineLatest_combinesTheLatestValueOfEachSourceOnEveryElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let letters = scheduler.createHotObservable([
            .next(150, "z"), .next(210, "a"), .next(230, "b"), .next(240, "c"), .completed(300),
        ])
        let numbers = scheduler.createHotObservable([.next(220, 1), .next(235, 2), .next(310, 3), .completed(320)])
        let res = scheduler.start { Observable.combineLatest(letters, numbers) { "\($0)\($1)" } }
        XCTAssertEqual(
            res.events,
            [.next(220, "a1"), .next(230, "b1"), .next(235, "b2"), .next(240, "c2"), .next(310, "c3"), .completed(320)])
        XCTAssertEqual(letters.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(numbers.subscriptions, [Subscription(200, 320)])
    }

    func testCombineLatest_errorEndsAtOnceAndUnsubscribesEverySource() {
        for index in 0..<4 {
            let scheduler = TestScheduler(initialClock: 0)
            let first = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(230)])
            let second = scheduler.createHotObservable([.next(150, 1), .error(220, testError)])
            let res = scheduler.start { self.sum(first, second)[index] }
            XCTAssertEqual(res.events, [.error(220, testError)])
            XCTAssertEqual(first.subscriptions, [Subscription(200, 220)])
            XCTAssertEqual(second.subscriptions, [Subscription(200, 220)])
        }
    }

    func testCombineLatest_firstErrorWins() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createHotObservable([.next(150, 1), .error(230, testError)])
        let second = scheduler.createHotObservable([.next(150, 1), .error(220, testError2)])
        let res = scheduler.start { Observable.combineLatest(first, second) { $0 + $1 } }
        XCTAssertEqual(res.events, [.error(220, testError2)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(second.subscriptions, [Subscription(200, 220)])
    }

    func testCombineLatest_errorThrownBySelectorEndsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .next(250, 3)])
        let second = scheduler.createHotObservable([.next(220, 10), .completed(400)])
        let res = scheduler.start {
            Observable.combineLatest(first, second) { (left: Int, right: Int) throws -> Int in
                if left == 2 { throw testError }
                return left + right
            }
        }
        XCTAssertEqual(res.events, [.next(220, 11), .error(230, testError)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(second.subscriptions, [Subscription(200, 230)])
    }

    func testCombineLatestCollection_errorThrownBySelectorEndsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createHotObservable([.next(210, 1), .next(230, 2)])
        let second = scheduler.createHotObservable([.next(220, 10)])
        let res = scheduler.start {
            Observable.combineLatest([first, second]) { (values: [Int]) throws -> Int in
                if values[0] == 2 { throw testError }
                return values.reduce(0, +)
            }
        }
        XCTAssertEqual(res.events, [.next(220, 11), .error(230, testError)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(second.subscriptions, [Subscription(200, 230)])
    }

    func testCombineLatest_disposeMidwayUnsubscribesEverySource() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .completed(500)])
        let second = scheduler.createHotObservable([.next(220, 10), .next(270, 20)])
        let res = scheduler.start(disposed: 265) { Observable.combineLatest(first, second) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(220, 11), .next(260, 12)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 265)])
        XCTAssertEqual(second.subscriptions, [Subscription(200, 265)])
    }

    func testCombineLatest_completedSourceKeepsItsLatestValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createHotObservable([.next(210, 1), .completed(215)])
        let second = scheduler.createHotObservable([.next(220, 10), .next(230, 20), .completed(240)])
        let res = scheduler.start { Observable.combineLatest(first, second) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(220, 11), .next(230, 21), .completed(240)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 215)])
        XCTAssertEqual(second.subscriptions, [Subscription(200, 240)])
    }

    func testCombineLatest_sameSourceTwiceSeesEachElementOnBothSides() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { Observable.combineLatest(xs, xs) { $0 * 10 + $1 } }
        XCTAssertEqual(res.events, [.next(210, 11), .next(220, 21), .next(220, 22), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230), Subscription(200, 230)])
    }

    func testCombineLatest_synchronousErrorStillSubscribesLaterSourcesAsRxSwiftDoes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let res = scheduler.start { Observable.combineLatest(Observable<Int>.error(testError), xs) { $0 + $1 } }
        XCTAssertEqual(res.events, [.error(200, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 200)])
    }

    func testCombineLatestCollection_emptyCollection_emitsTheSelectorOfNothing_thenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.combineLatest([Observable<Int>]()).map { $0.count } }
        // As RxSwift 6: `next(resultSelector([]))`, then `completed`, at subscription.
        XCTAssertEqual(res.events, [.next(200, 0), .completed(200)])
    }

    func testCombineLatestCollection_emptyCollection_withAThrowingSelector_fails() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable.combineLatest([Observable<Int>]()) { (_: [Int]) -> Int in throw testError }
        }
        XCTAssertEqual(res.events, [.error(200, testError)])
    }

    func testZipCollection_emptyCollection_completesAtOnce_asRxSwiftDoes() {
        // RxSwift's `Observable.zip` of an empty collection only completes (its traits'
        // `zip` emits `resultSelector([])`: see `PrimitiveSequenceZipTests`).
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.zip([Observable<Int>]()).map { $0.count } }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testCombineLatestCollection_emitsArraysInSourceOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let e0 = scheduler.createHotObservable([.next(210, 1), .next(250, 4), .completed(420)])
        let e1 = scheduler.createHotObservable([.next(220, 2), .completed(410)])
        let e2 = scheduler.createHotObservable([.next(230, 3), .next(240, 5), .completed(400)])
        let res = scheduler.start { Observable.combineLatest([e0, e1, e2]).map { $0.map(String.init).joined() } }
        XCTAssertEqual(res.events, [.next(230, "123"), .next(240, "125"), .next(250, "425"), .completed(420)])
        XCTAssertEqual(e0.subscriptions, [Subscription(200, 420)])
        XCTAssertEqual(e1.subscriptions, [Subscription(200, 410)])
        XCTAssertEqual(e2.subscriptions, [Subscription(200, 400)])
    }

    func testCombineLatest_reentrantElementIsDeliveredAfterTheCurrentOneNotInside() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        var log: [String] = []
        var depth = 0
        let subscription = Observable.combineLatest(first, second) { $0 * 10 + $1 }
            .subscribe(onNext: { value in
                depth += 1
                log.append("begin \(value)")
                if value == 11 { first.onNext(2) }
                log.append("end \(value)")
                depth -= 1
                XCTAssertEqual(depth, 0)
            })
        first.onNext(1)
        second.onNext(1)
        XCTAssertEqual(log, ["begin 11", "end 11", "begin 21", "end 21"])
        subscription.dispose()
        XCTAssertFalse(first.hasObservers)
        XCTAssertFalse(second.hasObservers)
    }

    func testCombineLatest_disposingFromHandlerStopsDeliveryAndUnsubscribes() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        var seen: [Int] = []
        let box = CombiningDisposableBox()
        box.disposable = Observable.combineLatest(first, second) { $0 + $1 }
            .subscribe(onNext: { value in
                seen.append(value)
                box.disposable?.dispose()
            })
        first.onNext(1)
        second.onNext(1)
        second.onNext(2)
        XCTAssertEqual(seen, [2])
        XCTAssertFalse(first.hasObservers)
        XCTAssertFalse(second.hasObservers)
        box.disposable = nil
    }
}
