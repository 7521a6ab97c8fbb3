import Rx
import RxTesting
import XCTest

final class ZipTests: RxTestCase {
    private func sum(_ first: TestableObservable<Int>, _ second: TestableObservable<Int>) -> [Observable<Int>] {
        [
            Observable.zip(first, second) { $0 + $1 },
            Observable.zip(first, second).map { $0 + $1 },
        ]
    }

    func testZip_neverAndEmpty_neverEmit() {
        for index in 0..<2 {
            let scheduler = TestScheduler(initialClock: 0)
            let never = scheduler.createHotObservable([.next(150, 1)])
            let empty = scheduler.createHotObservable([.next(150, 1), .completed(210)])
            let res = scheduler.start { self.sum(empty, never)[index] }
            XCTAssertEqual(res.events, [])
            XCTAssertEqual(never.subscriptions, [Subscription(200, 1000)])
            XCTAssertEqual(empty.subscriptions, [Subscription(200, 210)])
        }
    }

    func testZip_waitsForEverySourceToCompleteEvenWhenOneEndedEmpty() {
        for index in 0..<2 {
            let scheduler = TestScheduler(initialClock: 0)
            let empty = scheduler.createHotObservable([.next(150, 1), .completed(210)])
            let other = scheduler.createHotObservable([.next(150, 1), .next(215, 2), .completed(220)])
            let res = scheduler.start { self.sum(empty, other)[index] }
            XCTAssertEqual(res.events, [.completed(220)])
            XCTAssertEqual(empty.subscriptions, [Subscription(200, 210)])
            XCTAssertEqual(other.subscriptions, [Subscription(200, 220)])
        }
    }

    func testZip_queuesTheFasterSourceAndPairsByIndex() {
        let scheduler = TestScheduler(initialClock: 0)
        let fast = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .completed(300),
        ])
        let slow = scheduler.createHotObservable([.next(240, 10), .next(250, 20), .completed(310)])
        let res = scheduler.start { Observable.zip(fast, slow) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(240, 11), .next(250, 22), .completed(310)])
        XCTAssertEqual(fast.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(slow.subscriptions, [Subscription(200, 310)])
    }

    func testZip_leftCompletingFirstStillWaitsForTheRight() {
        let scheduler = TestScheduler(initialClock: 0)
        let left = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(220)])
        let right = scheduler.createHotObservable([.next(150, 1), .next(215, 4), .completed(225)])
        let res = scheduler.start { Observable.zip(left, right) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(215, 6), .completed(225)])
        XCTAssertEqual(left.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(right.subscriptions, [Subscription(200, 225)])
    }

    func testZip_errorEndsAtOnceAndUnsubscribesEverySource() {
        for index in 0..<2 {
            let scheduler = TestScheduler(initialClock: 0)
            let first = scheduler.createHotObservable([.next(150, 1), .next(215, 2), .completed(230)])
            let second = scheduler.createHotObservable([.next(150, 1), .error(220, testError)])
            let res = scheduler.start { self.sum(first, second)[index] }
            XCTAssertEqual(res.events, [.error(220, testError)])
            XCTAssertEqual(first.subscriptions, [Subscription(200, 220)])
            XCTAssertEqual(second.subscriptions, [Subscription(200, 220)])
        }
    }

    func testZip_errorThrownBySelectorEndsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(220)])
        let second = scheduler.createHotObservable([.next(150, 1), .next(210, 4)])
        let res = scheduler.start {
            Observable.zip(first, second) { (_: Int, _: Int) throws -> Int in throw testError }
        }
        XCTAssertEqual(res.events, [.error(220, testError)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(second.subscriptions, [Subscription(200, 220)])
    }

    func testZip_disposeMidwayUnsubscribesEverySource() {
        let scheduler = TestScheduler(initialClock: 0)
        let first = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        let second = scheduler.createColdObservable([.next(20, 10), .next(30, 20), .next(200, 30)])
        let res = scheduler.start(disposed: 350) { Observable.zip(first, second) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(220, 11), .next(300, 22)])
        XCTAssertEqual(first.subscriptions, [Subscription(200, 350)])
        XCTAssertEqual(second.subscriptions, [Subscription(200, 350)])
    }

    func testZip_sameSourceTwicePairsEachElementWithItself() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { Observable.zip(xs, xs) { $0 * 10 + $1 } }
        XCTAssertEqual(res.events, [.next(210, 11), .next(220, 22), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230), Subscription(200, 230)])
    }

    func testZip_synchronousSourcesZipDuringSubscription() {
        var results: [String] = []
        var completed = false
        _ = Observable.zip(Observable.of(1, 2, 3), Observable.of("a", "b")) { "\($0)\($1)" }
            .subscribe(onNext: { results.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(results, ["1a", "2b"])
        XCTAssertTrue(completed)
    }

    // MARK: Collections

    private func collectionFactories() -> [([TestableObservable<Int>]) -> Observable<String>] {
        [
            { sources in Observable.zip(sources) { $0.map(String.init).joined() } },
            { sources in Observable.zip(sources).map { $0.map(String.init).joined() } },
        ]
    }

    func testZipCollection_emptyCollectionCompletesAtOnce() {
        for factory in collectionFactories() {
            let scheduler = TestScheduler(initialClock: 0)
            let res = scheduler.start { factory([]) }
            XCTAssertEqual(res.events, [.completed(200)])
        }
    }

    func testZipCollection_symmetricSourcesCompleteWithTheLastOne() {
        for factory in collectionFactories() {
            let scheduler = TestScheduler(initialClock: 0)
            let e0 = scheduler.createHotObservable([.next(150, 1), .next(210, 1), .next(250, 4), .completed(420)])
            let e1 = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .next(240, 5), .completed(410)])
            let e2 = scheduler.createHotObservable([.next(150, 1), .next(230, 3), .next(260, 6), .completed(400)])
            let res = scheduler.start { factory([e0, e1, e2]) }
            XCTAssertEqual(res.events, [.next(230, "123"), .next(260, "456"), .completed(420)])
            XCTAssertEqual(e0.subscriptions, [Subscription(200, 420)])
            XCTAssertEqual(e1.subscriptions, [Subscription(200, 410)])
            XCTAssertEqual(e2.subscriptions, [Subscription(200, 400)])
        }
    }

    func testZipCollection_completesWhenASourceEmitsAfterTheOthersEndedWithAnEmptyQueue() {
        for factory in collectionFactories() {
            let scheduler = TestScheduler(initialClock: 0)
            let e0 = scheduler.createHotObservable([.next(150, 1), .next(210, 1), .next(250, 4), .completed(270)])
            let e1 = scheduler.createHotObservable([
                .next(150, 1), .next(220, 2), .next(240, 5), .next(290, 7), .next(310, 9), .completed(410),
            ])
            let e2 = scheduler.createHotObservable([
                .next(150, 1), .next(230, 3), .next(260, 6), .next(280, 8), .completed(300),
            ])
            let res = scheduler.start { factory([e0, e1, e2]) }
            XCTAssertEqual(res.events, [.next(230, "123"), .next(260, "456"), .completed(310)])
            XCTAssertEqual(e0.subscriptions, [Subscription(200, 270)])
            XCTAssertEqual(e1.subscriptions, [Subscription(200, 310)])
            XCTAssertEqual(e2.subscriptions, [Subscription(200, 300)])
        }
    }

    func testZipCollection_errorEndsAtOnce() {
        for factory in collectionFactories() {
            let scheduler = TestScheduler(initialClock: 0)
            let e0 = scheduler.createHotObservable([.next(150, 1), .next(210, 1), .error(250, testError)])
            let e1 = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .next(240, 5), .completed(410)])
            let e2 = scheduler.createHotObservable([.next(150, 1), .next(230, 3), .next(260, 6), .completed(400)])
            let res = scheduler.start { factory([e0, e1, e2]) }
            XCTAssertEqual(res.events, [.next(230, "123"), .error(250, testError)])
            XCTAssertEqual(e0.subscriptions, [Subscription(200, 250)])
            XCTAssertEqual(e1.subscriptions, [Subscription(200, 250)])
            XCTAssertEqual(e2.subscriptions, [Subscription(200, 250)])
        }
    }

    func testZipCollection_errorThrownBySelectorEndsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let e0 = scheduler.createHotObservable([.next(210, 1), .next(230, 2)])
        let e1 = scheduler.createHotObservable([.next(220, 10), .next(240, 20)])
        let res = scheduler.start {
            Observable.zip([e0, e1]) { (values: [Int]) throws -> Int in
                if values[0] == 2 { throw testError }
                return values.reduce(0, +)
            }
        }
        XCTAssertEqual(res.events, [.next(220, 11), .error(240, testError)])
        XCTAssertEqual(e0.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(e1.subscriptions, [Subscription(200, 240)])
    }

    func testZip_reentrantElementIsDeliveredAfterTheCurrentOneNotInside() {
        let first = PublishSubject<Int>()
        let second = PublishSubject<Int>()
        var log: [String] = []
        let subscription = Observable.zip(first, second) { $0 * 10 + $1 }
            .subscribe(onNext: { value in
                log.append("begin \(value)")
                if value == 11 {
                    first.onNext(2)
                    second.onNext(2)
                }
                log.append("end \(value)")
            })
        first.onNext(1)
        second.onNext(1)
        XCTAssertEqual(log, ["begin 11", "end 11", "begin 22", "end 22"])
        subscription.dispose()
        XCTAssertFalse(first.hasObservers)
        XCTAssertFalse(second.hasObservers)
    }
}
