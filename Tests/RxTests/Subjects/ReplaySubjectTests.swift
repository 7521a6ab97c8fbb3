import Foundation
import Rx
import RxTesting
import XCTest

final class ReplaySubjectTests: RxTestCase {
    /// Feeds `events` (hot, from 200 to 900) into `subject` and subscribes observers at the
    /// given times (each disposed at 950); returns what each observer recorded.
    private func record(
        _ subject: ReplaySubject<Int>, events: [Recorded<Event<Int>>], subscribeAt times: [TestTime]
    ) -> (observers: [TestableObserver<Int>], source: TestableObservable<Int>) {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable(events)
        var feed: Disposable?
        var subscriptions: [Disposable] = []
        let observers = times.map { _ in scheduler.createObserver(Int.self) }
        scheduler.scheduleAt(200) { feed = xs.subscribe(subject) }
        for (time, observer) in zip(times, observers) {
            scheduler.scheduleAt(time) { subscriptions.append(subject.subscribe(observer)) }
        }
        scheduler.scheduleAt(900) { feed?.dispose() }
        scheduler.scheduleAt(950) { subscriptions.forEach { $0.dispose() } }
        scheduler.start()
        return (observers, xs)
    }

    func testReplaySubject_lateObserverGetsLastBufferSizeElementsThenLiveOnes() {
        let (observers, xs) = record(
            .create(bufferSize: 2),
            events: [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(310, 5)],
            subscribeAt: [205, 300])
        XCTAssertEqual(
            observers[0].events, [.next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(310, 5)])
        XCTAssertEqual(observers[1].events, [.next(300, 3), .next(300, 4), .next(310, 5)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 900)])
    }

    func testReplaySubject_bufferOfOneReplaysLatestElement() {
        let (observers, _) = record(
            .create(bufferSize: 1), events: [.next(210, 1), .next(220, 2), .next(310, 3)], subscribeAt: [300])
        XCTAssertEqual(observers[0].events, [.next(300, 2), .next(310, 3)])
    }

    func testReplaySubject_unboundedReplaysEveryElement() {
        let (observers, _) = record(
            .createUnbounded(), events: [.next(210, 1), .next(220, 2), .next(230, 3), .next(310, 4)],
            subscribeAt: [300])
        XCTAssertEqual(observers[0].events, [.next(300, 1), .next(300, 2), .next(300, 3), .next(310, 4)])
    }

    func testReplaySubject_zeroOrNegativeBufferReplaysNothing() {
        for size in [0, -3] {
            let (observers, _) = record(
                .create(bufferSize: size), events: [.next(210, 1), .next(310, 2), .completed(320)],
                subscribeAt: [300, 400])
            XCTAssertEqual(observers[0].events, [.next(310, 2), .completed(320)], "bufferSize \(size)")
            XCTAssertEqual(observers[1].events, [.completed(400)], "bufferSize \(size)")
        }
    }

    func testReplaySubject_lateObserverAfterCompletionGetsBufferThenCompletion() {
        let (observers, _) = record(
            .create(bufferSize: 2),
            events: [.next(210, 1), .next(220, 2), .next(230, 3), .completed(240), .next(250, 9)],
            subscribeAt: [205, 500])
        XCTAssertEqual(
            observers[0].events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        XCTAssertEqual(observers[1].events, [.next(500, 2), .next(500, 3), .completed(500)])
    }

    func testReplaySubject_lateObserverAfterErrorGetsBufferThenError() {
        let (observers, _) = record(
            .createUnbounded(), events: [.next(210, 1), .error(240, testError), .completed(250)],
            subscribeAt: [205, 500])
        XCTAssertEqual(observers[0].events, [.next(210, 1), .error(240, testError)])
        XCTAssertEqual(observers[1].events, [.next(500, 1), .error(500, testError)])
    }

    func testReplaySubject_disposedObserverStopsReceiving() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .next(310, 3)])
        let subject = ReplaySubject<Int>.create(bufferSize: 5)
        scheduler.scheduleAt(200) { _ = xs.subscribe(subject) }
        let res = scheduler.start(created: 100, subscribed: 250, disposed: 300) { subject }
        XCTAssertEqual(res.events, [.next(250, 1), .next(260, 2)])
        XCTAssertFalse(subject.hasObservers)
        subject.dispose()
    }

    func testReplaySubject_disposeDropsBufferFailsNewObserversAndIgnoresEvents() {
        let subject = ReplaySubject<Int>.create(bufferSize: 3)
        var seen: [Int] = []
        let subscription = subject.subscribe(onNext: { seen.append($0) })
        subject.onNext(1)
        XCTAssertTrue(subject.hasObservers)
        subject.dispose()
        XCTAssertTrue(subject.isDisposed)
        XCTAssertFalse(subject.hasObservers)
        subject.onNext(2)
        var lateEvents: [Event<Int>] = []
        _ = subject.subscribe { lateEvents.append($0) }
        XCTAssertEqual(seen, [1])
        XCTAssertEqual(lateEvents.count, 1)
        guard case RxError.disposed? = lateEvents.first?.error as? RxError else { return XCTFail("expected disposed") }
        subscription.dispose()
    }

    func testReplaySubject_elementSentDuringReplayComesAfterTheReplay() {
        let subject = ReplaySubject<Int>.create(bufferSize: 3)
        subject.onNext(1)
        subject.onNext(2)
        var seen: [Int] = []
        let subscription = subject.subscribe(onNext: { value in
            seen.append(value)
            if value == 1 { subject.onNext(3) }
        })
        subject.onNext(4)
        XCTAssertEqual(seen, [1, 2, 3, 4])
        subscription.dispose()
    }

    func testReplaySubject_hasObserversCountsObserversStillReplaying() {
        let subject = ReplaySubject<Int>.create(bufferSize: 1)
        subject.onNext(1)
        var observedDuringReplay: Bool?
        let subscription = subject.subscribe(onNext: { _ in observedDuringReplay = subject.hasObservers })
        XCTAssertEqual(observedDuringReplay, true)
        subscription.dispose()
        XCTAssertFalse(subject.hasObservers)
    }

    func testReplaySubject_observerSubscribingDuringConcurrentEmissionSeesIncreasingValues() {
        let subject = ReplaySubject<Int>.create(bufferSize: 4)
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
