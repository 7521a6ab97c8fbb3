import Dispatch
import Foundation
import Rx
import RxTesting
import XCTest

final class DelayTests: RxTestCase {
    private func simpleSource(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([.next(150, 1), .next(250, 2), .next(350, 3), .next(450, 4), .completed(550)])
    }

    func testDelay_shiftsElementsAndCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = simpleSource(scheduler)
        let res = scheduler.start { xs.delay(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(350, 2), .next(450, 3), .next(550, 4), .completed(650)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 550)])
    }

    func testDelay_shorterThanTheGapBetweenElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = simpleSource(scheduler)
        let res = scheduler.start { xs.delay(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(300, 2), .next(400, 3), .next(500, 4), .completed(600)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 550)])
    }

    func testDelay_longerThanTheGapBetweenElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = simpleSource(scheduler)
        let res = scheduler.start { xs.delay(.seconds(150), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(400, 2), .next(500, 3), .next(600, 4), .completed(700)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 550)])
    }

    func testDelay_keepsEveryDistance() {
        let scheduler = TestScheduler(initialClock: 0)
        let messages: [Recorded<Event<Int>>] = [
            .next(150, 1), .next(250, 2), .next(350, 3), .next(450, 4), .completed(550),
        ]
        let xs = scheduler.createHotObservable(messages)
        let res = scheduler.start { xs.delay(.seconds(42), scheduler: scheduler) }
        XCTAssertEqual(
            res.events, messages.map { Recorded(time: $0.time + 42, value: $0.value) }.filter { $0.time > 200 })
    }

    func testDelay_errorIsNotDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .error(250, testError)])
        let res = scheduler.start { xs.delay(.seconds(150), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDelay_completionAloneIsDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let res = scheduler.start { xs.delay(.seconds(150), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDelay_errorAfterDeliveredElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(250, 2), .next(350, 3), .next(450, 4), .error(550, testError),
        ])
        let res = scheduler.start { xs.delay(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(300, 2), .next(400, 3), .next(500, 4), .error(550, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 550)])
    }

    func testDelay_errorDropsElementsStillWaiting() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(250, 2), .next(350, 3), .next(450, 4), .error(550, testError),
        ])
        let res = scheduler.start { xs.delay(.seconds(150), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(400, 2), .next(500, 3), .error(550, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 550)])
    }

    func testDelay_eventsOfOneTickAreDeliveredOneTickApart() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(250, 2), .next(250, 3), .completed(250)])
        let res = scheduler.start { xs.delay(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(350, 2), .next(351, 3), .completed(352)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDelay_disposeCancelsWaitingEvents() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = simpleSource(scheduler)
        let res = scheduler.start(disposed: 400) { xs.delay(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(350, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
    }

    func testDelay_neverDeliversNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.delay(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testDelay_synchronousSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable.of(1, 2).delay(.seconds(10), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(211, 2), .completed(212)])
    }

    func testDelay_zeroOrNegativeDueTimeDeliversOnTheNextTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let zero = scheduler.createObserver(Int.self)
        let negative = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) {
            _ = xs.delay(.seconds(0), scheduler: scheduler).subscribe(zero)
            _ = xs.delay(.seconds(-5), scheduler: scheduler).subscribe(negative)
        }
        scheduler.start()
        XCTAssertEqual(zero.events, [.next(211, 1), .completed(221)])
        XCTAssertEqual(negative.events, [.next(211, 1), .completed(221)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(200, 220)])
    }

    func testDelay_elementSentFromDownstreamIsDelayedToo() {
        let scheduler = TestScheduler(initialClock: 0)
        let subject = PublishSubject<Int>()
        let observer = scheduler.createObserver(Int.self)
        let subscription = subject.delay(.seconds(10), scheduler: scheduler).subscribe(onNext: { value in
            observer.onNext(value)
            if value == 1 { subject.onNext(2) }
        })
        scheduler.scheduleAt(210) { subject.onNext(1) }
        scheduler.start()
        subscription.dispose()
        XCTAssertEqual(observer.events, [.next(220, 1), .next(230, 2)])
    }

    func testDelay_realSchedulerKeepsOrder() {
        let scheduler = ErrorsQueueScheduler(label: "delay", concurrent: true)
        let subject = PublishSubject<Int>()
        let done = expectation(description: "completed")
        let received = ErrorsLocked<[Int]>([])
        let subscription = subject.delay(.milliseconds(10), scheduler: scheduler).subscribe(
            onNext: { value in received.mutate { $0.append(value) } }, onCompleted: { done.fulfill() })
        DispatchQueue.global().async {
            for value in 0..<100 { subject.onNext(value) }
            subject.onCompleted()
        }
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(received.value, Array(0..<100))
    }

    func testDelay_realSchedulerErrorWhileDeliveringWaitsForTheDelivery() {
        let scheduler = ErrorsQueueScheduler(label: "delay.error", concurrent: true)
        let subject = PublishSubject<Int>()
        let delivering = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let failed = expectation(description: "error")
        let log = ErrorsLocked<[String]>([])
        let subscription = subject.delay(.milliseconds(1), scheduler: scheduler).subscribe(
            onNext: { value in
                log.append("begin \(value)")
                delivering.signal()
                release.wait()
                log.append("end \(value)")
            },
            onError: { _ in
                log.append("error")
                failed.fulfill()
            })
        subject.onNext(1)
        delivering.wait()
        DispatchQueue.global().async {
            subject.onError(testError)
            release.signal()
        }
        wait(for: [failed], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(log.value, ["begin 1", "end 1", "error"])
    }
}
