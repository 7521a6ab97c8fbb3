import Dispatch
import Foundation
import Rx
import RxTesting
import XCTest

final class BehaviorSubjectTests: RxTestCase {
    func testBehaviorSubject_observerGetsCurrentValueAtSubscriptionThenLiveElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(230, 2), .next(280, 3), .next(350, 4), .next(420, 5), .next(530, 6),
        ])
        var subject: BehaviorSubject<Int>?
        var feed: Disposable?
        var subscription1: Disposable?
        var subscription2: Disposable?
        let res1 = scheduler.createObserver(Int.self)
        let res2 = scheduler.createObserver(Int.self)

        scheduler.scheduleAt(100) { subject = BehaviorSubject(value: 0) }
        scheduler.scheduleAt(200) { feed = subject.map { xs.subscribe($0) } }
        scheduler.scheduleAt(210) { subscription1 = subject?.subscribe(res1) }
        scheduler.scheduleAt(300) { subscription2 = subject?.subscribe(res2) }
        scheduler.scheduleAt(400) { subscription1?.dispose() }
        scheduler.scheduleAt(600) { subscription2?.dispose() }
        scheduler.scheduleAt(700) { feed?.dispose() }
        scheduler.start()

        XCTAssertEqual(res1.events, [.next(210, 0), .next(230, 2), .next(280, 3), .next(350, 4)])
        XCTAssertEqual(res2.events, [.next(300, 3), .next(350, 4), .next(420, 5), .next(530, 6)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 700)])
    }

    func testBehaviorSubject_completionReachesObserversAndLateObserversGetOnlyCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(230, 2), .completed(300), .next(310, 9), .error(320, testError),
        ])
        let subject = BehaviorSubject(value: 1)
        let res1 = scheduler.createObserver(Int.self)
        let res2 = scheduler.createObserver(Int.self)
        var feed: Disposable?
        scheduler.scheduleAt(200) { feed = xs.subscribe(subject) }
        scheduler.scheduleAt(220) { _ = subject.subscribe(res1) }
        scheduler.scheduleAt(400) { _ = subject.subscribe(res2) }
        scheduler.scheduleAt(500) { feed?.dispose() }
        scheduler.start()

        XCTAssertEqual(res1.events, [.next(220, 1), .next(230, 2), .completed(300)])
        XCTAssertEqual(res2.events, [.completed(400)])
        XCTAssertFalse(subject.hasObservers)
        XCTAssertEqual(try subject.value(), 2)
    }

    func testBehaviorSubject_errorReachesObserversAndLateObserversAndValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(230, 2), .error(300, testError), .next(310, 9)])
        let subject = BehaviorSubject(value: 1)
        let res1 = scheduler.createObserver(Int.self)
        let res2 = scheduler.createObserver(Int.self)
        var feed: Disposable?
        scheduler.scheduleAt(200) { feed = xs.subscribe(subject) }
        scheduler.scheduleAt(220) { _ = subject.subscribe(res1) }
        scheduler.scheduleAt(400) { _ = subject.subscribe(res2) }
        scheduler.scheduleAt(500) { feed?.dispose() }
        scheduler.start()

        XCTAssertEqual(res1.events, [.next(220, 1), .next(230, 2), .error(300, testError)])
        XCTAssertEqual(res2.events, [.error(400, testError)])
        XCTAssertThrowsError(try subject.value()) { XCTAssertEqual($0 as? TestError, testError) }
    }

    func testBehaviorSubject_observerOfSilentSourceGetsOnlyInitialValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.completed(630)] as [Recorded<Event<Int>>])
        let subject = BehaviorSubject(value: 100)
        var feed: Disposable?
        scheduler.scheduleAt(200) { feed = xs.subscribe(subject) }
        scheduler.scheduleAt(900) { feed?.dispose() }
        let res = scheduler.start { subject }
        XCTAssertEqual(res.events, [.next(200, 100), .completed(630)])
    }

    func testBehaviorSubject_valueFollowsElementsAndThrowsDisposedAfterDispose() throws {
        let subject = BehaviorSubject(value: "a")
        XCTAssertEqual(try subject.value(), "a")
        subject.onNext("b")
        XCTAssertEqual(try subject.value(), "b")
        subject.onCompleted()
        subject.onNext("c")
        XCTAssertEqual(try subject.value(), "b")
        subject.dispose()
        XCTAssertTrue(subject.isDisposed)
        XCTAssertThrowsError(try subject.value()) { error in
            guard case RxError.disposed = error else { return XCTFail("expected disposed, got \(error)") }
        }
    }

    func testBehaviorSubject_disposedSubjectFailsNewObserversAndIgnoresEvents() {
        let subject = BehaviorSubject(value: 1)
        var seen: [Int] = []
        let subscription = subject.subscribe(onNext: { seen.append($0) })
        subject.dispose()
        subject.onNext(2)
        subject.onCompleted()
        XCTAssertEqual(seen, [1])
        XCTAssertFalse(subject.hasObservers)

        var lateError: Error?
        _ = subject.subscribe(onNext: { seen.append($0) }, onError: { lateError = $0 })
        guard case RxError.disposed? = lateError as? RxError else { return XCTFail("expected disposed") }
        XCTAssertEqual(seen, [1])
        subscription.dispose()
    }

    func testBehaviorSubject_hasObserversCountsLiveSubscriptions() {
        let subject = BehaviorSubject(value: 0)
        XCTAssertFalse(subject.hasObservers)
        let first = subject.subscribe()
        let second = subject.subscribe()
        XCTAssertTrue(subject.hasObservers)
        first.dispose()
        XCTAssertTrue(subject.hasObservers)
        first.dispose()
        XCTAssertTrue(subject.hasObservers)
        second.dispose()
        XCTAssertFalse(subject.hasObservers)
    }

    func testBehaviorSubject_elementSentWhileObserverReceivesCurrentValueComesAfterIt() {
        let subject = BehaviorSubject(value: 1)
        var other: [Int] = []
        let otherSubscription = subject.subscribe(onNext: { other.append($0) })
        var seen: [Int] = []
        let subscription = subject.subscribe(onNext: { value in
            seen.append(value)
            if value == 1 { subject.onNext(2) }
        })
        subject.onNext(3)
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertEqual(other, [1, 2, 3])
        subscription.dispose()
        otherSubscription.dispose()
    }

    func testBehaviorSubject_completionSentWhileObserverReceivesCurrentValueComesAfterIt() {
        let subject = BehaviorSubject(value: 1)
        var events: [Event<Int>] = []
        _ = subject.subscribe { event in
            events.append(event)
            if event.element == 1 { subject.onCompleted() }
        }
        XCTAssertEqual(events, [.next(1), .completed])
        XCTAssertFalse(subject.hasObservers)
    }

    func testBehaviorSubject_subscribingFromHandlerGetsCurrentValueSynchronously() {
        let subject = BehaviorSubject(value: 0)
        var inner: [Int] = []
        var innerSubscription: Disposable?
        let outerSubscription = subject.subscribe(onNext: { value in
            guard value == 1 else { return }
            innerSubscription = subject.subscribe(onNext: { inner.append($0) })
            XCTAssertEqual(inner, [1])
        })
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(inner, [1, 2])
        outerSubscription.dispose()
        innerSubscription?.dispose()
    }

    func testBehaviorSubject_observerSubscribingDuringConcurrentEmissionSeesIncreasingValues() {
        let subject = BehaviorSubject(value: 0)
        let failures = ShareFailureLog()
        shareRunWhileEmitting(into: subject) {
            for _ in 0..<300 {
                let checker = ShareOrderChecker(failures: failures, slowFirstDelivery: true)
                let subscription = subject.subscribe(onNext: { checker.receive($0) })
                subscription.dispose()
            }
        }
        XCTAssertEqual(failures.messages, [])
        XCTAssertFalse(subject.hasObservers)
    }
}
