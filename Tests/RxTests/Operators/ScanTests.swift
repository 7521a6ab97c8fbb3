import Rx
import RxTesting
import XCTest

final class ScanTests: RxTestCase {
    func testScan_emitsEachRunningValueButNotTheSeed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .completed(250),
        ])
        let res = scheduler.start { xs.scan(0) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 5), .next(230, 9), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testScanInto_mutatesTheRunningValueInPlace() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(250)])
        let res = scheduler.start { xs.scan(into: [Int]()) { $0.append($1) } }
        XCTAssertEqual(res.events, [.next(210, [1]), .next(220, [1, 2]), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testScan_eachSubscriptionStartsFromTheSeed() {
        let running = Observable.of(1, 2, 3).scan(10) { $0 + $1 }
        var first: [Int] = []
        var second: [Int] = []
        _ = running.subscribe(onNext: { first.append($0) })
        _ = running.subscribe(onNext: { second.append($0) })
        XCTAssertEqual(first, [11, 13, 16])
        XCTAssertEqual(second, [11, 13, 16])

        let collected = Observable.of(1, 2).scan(into: [0]) { $0.append($1) }
        var firstArrays: [[Int]] = []
        var secondArrays: [[Int]] = []
        _ = collected.subscribe(onNext: { firstArrays.append($0) })
        _ = collected.subscribe(onNext: { secondArrays.append($0) })
        XCTAssertEqual(firstArrays, [[0, 1], [0, 1, 2]])
        XCTAssertEqual(secondArrays, [[0, 1], [0, 1, 2]])
    }

    func testScan_accumulatorErrorEndsSequenceAndDisposesUpstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
        let res = scheduler.start {
            xs.scan(0) { running, value -> Int in
                if value == 2 { throw testError }
                return running + value
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testScanInto_accumulatorErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start {
            xs.scan(into: 0) { running, value in
                if value == 2 { throw testError }
                running += value
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testScan_sourceErrorPassesThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { xs.scan(0) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testScan_emptySourceCompletesWithoutTheSeed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.completed(250)])
        let res = scheduler.start { xs.scan(42) { $0 + $1 } }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testScan_disposeUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let res = scheduler.start(disposed: 250) { xs.scan(0) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }
}
