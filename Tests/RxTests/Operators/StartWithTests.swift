import Rx
import RxTesting
import XCTest

// `startWith` adds no sink of its own (as in RxSwift): the source talks to the observer
// directly, so a bare test observer keeps a finished hot source subscribed until the
// subscription is disposed, while a downstream operator ends it at the terminal event.
final class StartWithTests: RxTestCase {
    func testStartWith_emitsTheElementsAtSubscriptionThenTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(250)])
        let res = scheduler.start { xs.startWith(10, 11) }
        XCTAssertEqual(res.events, [.next(200, 10), .next(200, 11), .next(220, 2), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testStartWith_downstreamOperatorUnsubscribesTheSourceAtItsTerminalEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(220, 2), .completed(250)])
        let res = scheduler.start { xs.startWith(10).map { $0 + 1 } }
        XCTAssertEqual(res.events, [.next(200, 11), .next(220, 3), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testStartWith_noElementsIsTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(220, 2), .completed(250)])
        let res = scheduler.start { xs.startWith() }
        XCTAssertEqual(res.events, [.next(220, 2), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testStartWith_sourceErrorFollowsTheElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(230, testError)])
        let res = scheduler.start { xs.startWith(1) }
        XCTAssertEqual(res.events, [.next(200, 1), .error(230, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testStartWith_disposeMidwayUnsubscribesTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(220, 2), .next(400, 3)])
        let res = scheduler.start(disposed: 300) { xs.startWith(1) }
        XCTAssertEqual(res.events, [.next(200, 1), .next(220, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testStartWith_chainedCallsPrependInReverseOrder() {
        var results: [Int] = []
        _ = Observable.just(4).startWith(3).startWith(1, 2)
            .subscribe(onNext: { results.append($0) })
        XCTAssertEqual(results, [1, 2, 3, 4])
    }

    func testStartWith_eachSubscriptionGetsTheElements() {
        let subject = PublishSubject<Int>()
        let source = subject.startWith(0)
        var first: [Int] = []
        var second: [Int] = []
        let subscription1 = source.subscribe(onNext: { first.append($0) })
        subject.onNext(1)
        let subscription2 = source.subscribe(onNext: { second.append($0) })
        subject.onNext(2)
        XCTAssertEqual(first, [0, 1, 2])
        XCTAssertEqual(second, [0, 2])
        subscription1.dispose()
        subscription2.dispose()
        XCTAssertFalse(subject.hasObservers)
    }
}
