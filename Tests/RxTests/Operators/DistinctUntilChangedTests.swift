import Rx
import RxTesting
import XCTest

final class DistinctUntilChangedTests: RxTestCase {
    func testDistinctUntilChanged_dropsConsecutiveDuplicates() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(215, 3), .next(220, 3), .next(225, 2), .next(230, 2),
            .next(235, 1), .next(240, 2), .completed(250),
        ])
        let res = scheduler.start { xs.distinctUntilChanged() }
        XCTAssertEqual(
            res.events,
            [.next(210, 2), .next(215, 3), .next(225, 2), .next(235, 1), .next(240, 2), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDistinctUntilChanged_allEqualLetsOnlyTheFirstThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 2), .next(230, 2), .next(240, 2), .completed(250),
        ])
        let res = scheduler.start { xs.distinctUntilChanged() }
        XCTAssertEqual(res.events, [.next(210, 2), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDistinctUntilChanged_emptyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let res = scheduler.start { xs.distinctUntilChanged() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDistinctUntilChanged_neverStaysSubscribedUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.distinctUntilChanged() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testDistinctUntilChanged_forwardsSourceError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 2), .error(230, testError)])
        let res = scheduler.start { xs.distinctUntilChanged() }
        XCTAssertEqual(res.events, [.next(210, 2), .error(230, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testDistinctUntilChanged_disposeMidwayUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start(disposed: 225) { xs.distinctUntilChanged() }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
    }

    func testDistinctUntilChangedKeySelector_comparesKeys() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 4), .next(220, 1), .next(230, 7), .next(240, 2), .next(250, 5), .completed(260),
        ])
        let res = scheduler.start { xs.distinctUntilChanged { $0 % 3 } }
        XCTAssertEqual(res.events, [.next(210, 4), .next(240, 2), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
    }

    func testDistinctUntilChangedKeySelector_thrownErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start {
            xs.distinctUntilChanged { value -> Int in
                if value == 2 { throw testError }
                return value
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testDistinctUntilChangedComparer_comparesWithLastForwardedElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .completed(250),
        ])
        // 2 is "equal" to 1 and dropped; 3 is then compared with 1, not with the dropped 2.
        let res = scheduler.start { xs.distinctUntilChanged { abs($0 - $1) <= 1 } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 3), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDistinctUntilChangedComparer_receivesPreviousThenCurrent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 5), .next(230, 3), .completed(240)])
        // Equal when the new element is smaller: order of the arguments matters.
        let res = scheduler.start { xs.distinctUntilChanged { previous, current in current < previous } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 5), .completed(240)])
    }

    func testDistinctUntilChangedComparer_thrownErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start {
            xs.distinctUntilChanged { (_: Int, _: Int) -> Bool in throw testError }
        }
        // The first element is never compared.
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testDistinctUntilChangedKeySelectorAndComparer_usesBoth() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, "a"), .next(220, "A"), .next(230, "b"), .next(240, "B"), .next(250, "a"), .completed(260),
        ])
        let res = scheduler.start {
            xs.distinctUntilChanged({ $0.lowercased() }, comparer: { $0 == $1 })
        }
        XCTAssertEqual(res.events, [.next(210, "a"), .next(230, "b"), .next(250, "a"), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
    }

    func testDistinctUntilChangedAtKeyPath_comparesTheProperty() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, Person(name: "Ann", age: 1)), .next(220, Person(name: "Ann", age: 2)),
            .next(230, Person(name: "Bob", age: 2)), .completed(240),
        ])
        let res = scheduler.start { xs.distinctUntilChanged(at: \.name) }
        XCTAssertEqual(
            res.events,
            [.next(210, Person(name: "Ann", age: 1)), .next(230, Person(name: "Bob", age: 2)), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testDistinctUntilChanged_reentrantDuplicateIsDropped() {
        let subject = PublishSubject<Int>()
        var seen: [Int] = []
        let subscription = subject.distinctUntilChanged().subscribe(onNext: { value in
            seen.append(value)
            if value == 1 {
                subject.onNext(1)
                subject.onNext(2)
            }
        })
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(seen, [1, 2])
        subscription.dispose()
    }

    func testDistinctUntilChanged_synchronousSource() {
        var seen: [Int] = []
        var completed = false
        _ = Observable.from([1, 1, 2, 2, 2, 3, 1, 1]).distinctUntilChanged().subscribe(
            onNext: { seen.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(seen, [1, 2, 3, 1])
        XCTAssertTrue(completed)
    }
}

private struct Person: Equatable {
    let name: String
    let age: Int
}
