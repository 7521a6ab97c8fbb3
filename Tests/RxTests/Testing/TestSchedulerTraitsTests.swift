import Foundation
import Rx
import RxTesting
import XCTest

/// `TestScheduler.start`, in each of its three forms, with each trait as the tested sequence.
final class TestSchedulerTraitsTests: RxTestCase {
    func testStart_single() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(250)])
        let res = scheduler.start { xs.asSingle() }
        XCTAssertEqual(res.events, [.next(250, 1), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testStartDisposed_single() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = scheduler.createColdObservable([.next(50, 2), .completed(60)])
        let res = scheduler.start(disposed: 230) { ys.asSingle() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 230)])
    }

    func testStartCreatedSubscribedDisposed_single() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = scheduler.createColdObservable([.next(50, 2), .completed(60)])
        let res = scheduler.start(created: 300, subscribed: 400, disposed: 1000) { ys.asSingle() }
        XCTAssertEqual(res.events, [.next(460, 2), .completed(460)])
        XCTAssertEqual(ys.subscriptions, [Subscription(400, 460)])
    }

    func testStart_maybe() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.completed(250)] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.asMaybe() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testStartDisposed_maybe() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(300, 1), .completed(400)])
        let res = scheduler.start(disposed: 350) { xs.asMaybe() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 350)])
    }

    func testStartCreatedSubscribedDisposed_maybe() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(created: 300, subscribed: 400, disposed: 1000) { Maybe.just("a") }
        XCTAssertEqual(res.events, [.next(400, "a"), .completed(400)])
    }

    func testStart_completable() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(250)])
        // A completable's element type is `Never`: its recorded events are terminal ones.
        let res: TestableObserver<Never> = scheduler.start { xs.asCompletable() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testStartDisposed_completable() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = scheduler.createColdObservable([.error(30, testError)] as [Recorded<Event<Int>>])
        let res = scheduler.start(disposed: 500) { ys.asCompletable() }
        XCTAssertEqual(res.events, [.error(230, testError)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 230)])
    }

    func testStartCreatedSubscribedDisposed_completable() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(created: 300, subscribed: 400, disposed: 1000) { Completable.empty() }
        XCTAssertEqual(res.events, [.completed(400)])
    }

    func testStart_infallible() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { xs.asInfallible(onErrorJustReturn: 0) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 0), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testStartDisposed_infallible() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = scheduler.createColdObservable([.next(10, 5), .next(50, 6)])
        let res = scheduler.start(disposed: 230) { ys.asInfallible(onErrorJustReturn: 0) }
        XCTAssertEqual(res.events, [.next(210, 5)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 230)])
    }

    func testStartCreatedSubscribedDisposed_infallible() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = scheduler.createColdObservable([.next(10, 5), .next(50, 6)])
        let res = scheduler.start(created: 300, subscribed: 400, disposed: 455) {
            ys.asInfallible(onErrorJustReturn: 0)
        }
        XCTAssertEqual(res.events, [.next(410, 5), .next(450, 6)])
        XCTAssertEqual(ys.subscriptions, [Subscription(400, 455)])
    }
}
