import Dispatch
import Foundation
import Rx
import RxTesting
import XCTest

final class ObserveOnTests: RxTestCase {
    // MARK: Virtual time

    func testObserveOn_deliversEachEventOneTickLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(300)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(211, 2), .next(221, 3), .completed(301)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 301)])
    }

    func testObserveOn_queuedEventsAreDeliveredOneScheduledActionAtATime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(210, 2), .next(211, 3), .completed(211)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(211, 1), .next(212, 2), .next(213, 3), .completed(214)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 214)])
    }

    func testObserveOn_errorIsDeliveredInOrderAfterQueuedElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(210, testError), .next(215, 2)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(211, 1), .error(212, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 212)])
    }

    func testObserveOn_disposeDropsQueuedEvents() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(210, 2), .next(210, 3), .completed(210)])
        let res = scheduler.start(disposed: 212) { xs.observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(211, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 212)])
    }

    func testObserveOn_neverDeliversNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testObserveOn_reentrantEventFromDownstreamIsQueuedBehind() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = PublishSubject<Int>()
        let observer = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) {
            _ = subject.observe(on: scheduler).subscribe(
                onNext: { value in
                    observer.onNext(value)
                    if value == 1 { subject.onNext(10) }
                    if value == 10 { subject.onCompleted() }
                }, onCompleted: { observer.onCompleted() })
        }
        scheduler.scheduleAt(210) { subject.onNext(1) }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(211, 1), .next(212, 10), .completed(213)])
    }

    // MARK: Real threads

    func testObserveOn_serialQueueDeliversEverythingOnTheQueueInOrder() {
        let scheduler = ErrorsQueueScheduler(label: "observeOn.serial")
        let done = expectation(description: "completed")
        let received = ErrorsLocked<[Int]>([])
        let onQueue = ErrorsLocked(true)
        let subscription = Observable.from(0..<1_000)
            .observe(on: scheduler)
            .subscribe(
                onNext: { value in
                    if !scheduler.isCurrent { onQueue.mutate { $0 = false } }
                    received.mutate { $0.append(value) }
                },
                onCompleted: {
                    if !scheduler.isCurrent { onQueue.mutate { $0 = false } }
                    done.fulfill()
                })
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(received.value, Array(0..<1_000))
        XCTAssertTrue(onQueue.value)
    }

    func testObserveOn_concurrentQueueStillDeliversOneEventAtATime() {
        let scheduler = ErrorsQueueScheduler(label: "observeOn.concurrent", concurrent: true)
        let done = expectation(description: "completed")
        let received = ErrorsLocked<[Int]>([])
        let inside = ErrorsLocked(0)
        let overlapped = ErrorsLocked(false)
        let subject = PublishSubject<Int>()
        let subscription = subject.observe(on: scheduler).subscribe(
            onNext: { value in
                if inside.increment() > 1 { overlapped.mutate { $0 = true } }
                received.mutate { $0.append(value) }
                inside.mutate { $0 -= 1 }
            },
            onCompleted: { done.fulfill() })
        DispatchQueue.global().async {
            for value in 0..<500 { subject.onNext(value) }
            subject.onCompleted()
        }
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(received.value, Array(0..<500))
        XCTAssertFalse(overlapped.value)
    }

    func testObserveOn_disposeWhileDeliveringDropsTheRest() {
        let scheduler = ErrorsQueueScheduler(label: "observeOn.dispose")
        let subject = PublishSubject<Int>()
        let deliveringFirst = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let received = ErrorsLocked<[Event<Int>]>([])
        let subscription = subject.observe(on: scheduler).subscribe { event in
            received.mutate { $0.append(event) }
            if case .next(0) = event {
                deliveringFirst.signal()
                release.wait()
            }
        }
        subject.onNext(0)
        deliveringFirst.wait()
        subject.onNext(1)
        subject.onError(testError)
        subscription.dispose()
        release.signal()
        // Anything still queued would run before this barrier.
        scheduler.queue.sync {}
        XCTAssertEqual(received.value, [.next(0)])
        XCTAssertFalse(subject.hasObservers)
    }
}
