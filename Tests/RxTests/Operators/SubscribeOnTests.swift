import Dispatch
import Foundation
import Rx
import RxTesting
import XCTest

final class SubscribeOnTests: RxTestCase {
    func testSubscribeOn_subscribesAndDisposesOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let subscribedAt = ErrorsLocked<TestTime?>(nil)
        let disposedAt = ErrorsLocked<TestTime?>(nil)
        let xs = Observable<Int>.create { _ in
            subscribedAt.mutate { $0 = scheduler.clock }
            return Disposables.create { disposedAt.mutate { $0 = scheduler.clock } }
        }
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(subscribedAt.value, 201)
        XCTAssertEqual(disposedAt.value, 1001)
    }

    func testSubscribeOn_completionDisposesSourceOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(300)])
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(201, 301)])
    }

    func testSubscribeOn_errorDisposesSourceOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.error(300, testError)])
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.error(300, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(201, 301)])
    }

    func testSubscribeOn_elementsArriveWhenTheSourceEmitsThem() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2)])
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(201, 1001)])
    }

    func testSubscribeOn_disposeBeforeTheScheduledSubscriptionCancelsIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1)])
        let observer = scheduler.createObserver(Int.self)
        scheduler.advanceTo(200)
        let subscription = xs.subscribe(on: scheduler).subscribe(observer)
        subscription.dispose()
        scheduler.start()
        XCTAssertEqual(observer.events, [])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testSubscribeOn_synchronousSourceDeliversOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(1, 2).subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 1), .next(201, 2), .completed(201)])
    }

    func testSubscribeOn_realQueueRunsSubscriptionAndDisposalThere() {
        let scheduler = ErrorsQueueScheduler(label: "subscribeOn")
        let subscribedOnQueue = expectation(description: "subscribed on queue")
        let disposedOnQueue = expectation(description: "disposed on queue")
        let source = Observable<Int>.create { observer in
            if scheduler.isCurrent { subscribedOnQueue.fulfill() }
            observer.onNext(1)
            return Disposables.create {
                if scheduler.isCurrent { disposedOnQueue.fulfill() }
            }
        }
        let received = expectation(description: "element")
        let subscription = source.subscribe(on: scheduler).subscribe(onNext: { _ in received.fulfill() })
        wait(for: [subscribedOnQueue, received], timeout: 5)
        subscription.dispose()
        wait(for: [disposedOnQueue], timeout: 5)
    }
}
