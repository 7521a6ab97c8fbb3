import Rx
import RxTesting
import XCTest

final class WithLatestFromTests: RxTestCase {
    func testWithLatestFrom_combinesEachElementWithTheLatestOfTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(90, 1), .next(180, 2), .next(250, 3), .next(260, 4), .next(310, 5), .next(340, 6),
            .next(410, 7), .next(420, 8), .next(470, 9), .next(550, 10), .completed(590),
        ])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .completed(400),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        XCTAssertEqual(
            res.events,
            [
                .next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"), .next(410, "7qux"),
                .next(420, "8qux"), .next(470, "9qux"), .next(550, "10qux"), .completed(590),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 590)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 400)])
    }

    func testWithLatestFrom_withoutSelectorEmitsTheLatestOfTheSecond() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .next(250, 3), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, "a"), .next(240, "b")])
        let res = scheduler.start { xs.withLatestFrom(ys) }
        XCTAssertEqual(res.events, [.next(230, "a"), .next(250, "b"), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 300)])
    }

    func testWithLatestFrom_secondNeverEmittingDropsEverythingUntilTheFirstCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let ys: TestableObservable<Int> = scheduler.createHotObservable([.completed(215)])
        let res = scheduler.start { xs.withLatestFrom(ys) { $0 + $1 } }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 215)])
    }

    func testWithLatestFrom_errorFromTheFirstEndsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(230, 1), .error(240, testError)])
        let ys = scheduler.createHotObservable([.next(220, 10), .next(250, 20)])
        let res = scheduler.start { xs.withLatestFrom(ys) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(230, 11), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 240)])
    }

    func testWithLatestFrom_errorFromTheSecondEndsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(230, 1), .next(250, 2), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, 10), .error(240, testError)])
        let res = scheduler.start { xs.withLatestFrom(ys) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(230, 11), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 240)])
    }

    func testWithLatestFrom_errorThrownBySelectorEndsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(230, 1), .next(250, 2), .completed(300)])
        let ys = scheduler.createHotObservable([.next(220, 10)])
        let res = scheduler.start {
            xs.withLatestFrom(ys) { (first: Int, second: Int) throws -> Int in
                if first == 2 { throw testError }
                return first + second
            }
        }
        XCTAssertEqual(res.events, [.next(230, 11), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testWithLatestFrom_disposeMidwayUnsubscribesBoth() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(230, 1), .next(350, 2)])
        let ys = scheduler.createHotObservable([.next(220, 10)])
        let res = scheduler.start(disposed: 300) { xs.withLatestFrom(ys) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(230, 11)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 300)])
    }

    func testWithLatestFrom_subscribesTheSecondBeforeTheFirst() {
        var results: [String] = []
        _ = Observable.just(1).withLatestFrom(Observable.just("a")) { "\($0)\($1)" }
            .subscribe(onNext: { results.append($0) })
        XCTAssertEqual(results, ["1a"])
    }

    func testWithLatestFrom_sameSourceOnBothSidesSeesTheElementFirstAsLatest() {
        let subject = PublishSubject<Int>()
        var results: [Int] = []
        let subscription = subject.withLatestFrom(subject) { $0 * 10 + $1 }
            .subscribe(onNext: { results.append($0) })
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(results, [11, 22])
        subscription.dispose()
        XCTAssertFalse(subject.hasObservers)
    }

    func testWithLatestFrom_reentrantElementIsDeliveredAfterTheCurrentOneNotInside() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<String>()
        var log: [String] = []
        let subscription = first.withLatestFrom(second) { "\($0)\($1)" }
            .subscribe(onNext: { value in
                log.append("begin \(value)")
                if value == "1a" {
                    second.onNext("b")
                    first.onNext(2)
                }
                log.append("end \(value)")
            })
        second.onNext("a")
        first.onNext(1)
        XCTAssertEqual(log, ["begin 1a", "end 1a", "begin 2b", "end 2b"])
        subscription.dispose()
        XCTAssertFalse(first.hasObservers)
        XCTAssertFalse(second.hasObservers)
    }
}
