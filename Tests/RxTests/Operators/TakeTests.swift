import Rx
import RxTesting
import XCTest

final class TakeTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler, end: Recorded<Event<Int>>) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(70, 6), .next(150, 4), .next(210, 9), .next(230, 13), .next(270, 7), .next(280, 1),
            .next(300, -1), .next(310, 3), .next(340, 8), .next(370, 11), end,
        ])
    }

    // MARK: take(_ count:)

    func testTake_completesWithTheLastTakenElementAndUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start { xs.take(3) }
        XCTAssertEqual(res.events, [.next(210, 9), .next(230, 13), .next(270, 7), .completed(270)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 270)])
    }

    func testTake_exactlyAllElementsCompletesAtTheLastOne() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start { xs.take(8) }
        XCTAssertEqual(res.events.last, .completed(370))
        XCTAssertEqual(res.events.count, 9)
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 370)])
    }

    func testTake_moreThanAvailableCompletesWithTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start { xs.take(20) }
        XCTAssertEqual(res.events.count, 9)
        XCTAssertEqual(res.events.last, .completed(400))
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
    }

    func testTake_sourceErrorBeforeCountIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .error(400, testError))
        let res = scheduler.start { xs.take(20) }
        XCTAssertEqual(res.events.last, .error(400, testError))
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
    }

    func testTake_sourceErrorAfterCountIsNotSeen() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .error(400, testError))
        let res = scheduler.start { xs.take(2) }
        XCTAssertEqual(res.events, [.next(210, 9), .next(230, 13), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testTake_disposeBeforeCountUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start(disposed: 250) { xs.take(3) }
        XCTAssertEqual(res.events, [.next(210, 9), .next(230, 13)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testTake_zeroCompletesAtOnceWithoutSubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start { xs.take(0) }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testTake_negativeCountFailsWithArgumentOutOfRange() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(400))
        let res = scheduler.start { xs.take(-1) }
        XCTAssertEqual(res.events, [.error(200, RxError.argumentOutOfRange)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testTake_emptyCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let res = scheduler.start { xs.take(1) }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testTake_countIsDecrementedBeforeForwarding() {
        let subject = PublishSubject<Int>()
        var seen: [Int] = []
        var completions = 0
        _ = subject.take(1).subscribe(
            onNext: { value in
                seen.append(value)
                subject.onNext(value + 1)  // re-entrant: must not get through
            },
            onCompleted: { completions += 1 })
        subject.onNext(1)
        XCTAssertEqual(seen, [1])
        XCTAssertEqual(completions, 1)
        XCTAssertFalse(subject.hasObservers)
    }

    func testTake_stopsAnInfiniteSynchronousSource() {
        let pulled = PullCounter()
        let naturals = AnySequence { () -> AnyIterator<Int> in
            var next = 0
            return AnyIterator {
                pulled.count += 1
                next += 1
                return next
            }
        }
        var seen: [Int] = []
        var completed = false
        _ = Observable.from(naturals).take(3).subscribe(onNext: { seen.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertTrue(completed)
        // `from` checks for disposal before each element: at most one more is pulled.
        XCTAssertLessThanOrEqual(pulled.count, 4)
    }

    // MARK: take(for:scheduler:)

    func testTakeFor_zeroCompletesAtTheNextTick() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.take(for: .seconds(0), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(201)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 201)])
    }

    func testTakeFor_completesWhenTheDurationEnds() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start { xs.take(for: .seconds(25), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
    }

    func testTakeFor_sourceCompletingFirstCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testTakeFor_sourceErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(0, 0), .error(210, testError)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testTakeFor_neverSourceCompletesByTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.next(0, 0)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testTakeFor_chainedTakesEndAtTheShorterDuration() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .completed(270),
        ])
        let res = scheduler.start {
            xs.take(for: .seconds(55), scheduler: scheduler).take(for: .seconds(35), scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(235)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 235)])
    }

    func testTakeFor_timerIsScheduledBeforeTheSourceIsSubscribed() {
        let scheduler = TestScheduler(initialClock: 0)
        // The cold element is due at the same tick as the timer, but scheduled after it.
        let xs = scheduler.createColdObservable([.next(25, 1), .completed(30)])
        let res = scheduler.start { xs.take(for: .seconds(25), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
    }

    func testTakeFor_disposeCancelsTheTimer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
        let res = scheduler.start(disposed: 215) { xs.take(for: .seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 215)])
    }

    func testTakeFor_neverDurationNeverCompletesByTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(900, 2)])
        let res = scheduler.start { xs.take(for: .never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(900, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    @available(*, deprecated)
    func testTakeDeprecatedDuration_isTakeFor() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start { xs.take(.seconds(25), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
    }

    func testTakeFor_realSchedulerTimerRacingElementsDeliversSerially() {
        let scheduler = FilterDispatchQueueScheduler(label: "TakeTests.timer")
        let recorder = FilterEventRecorder<Int>()
        let subject = PublishSubject<Int>()
        let subscription = subject.take(for: .milliseconds(20), scheduler: scheduler).subscribe(recorder)
        let emitter = DispatchQueue(label: "TakeTests.emitter")
        emitter.async {
            var value = 0
            // Keeps emitting until the timer's completion got through.
            while !recorder.isTerminated {
                subject.onNext(value)
                value += 1
            }
        }
        wait(for: [recorder.terminated], timeout: 5)
        emitter.sync {}
        subscription.dispose()
        let elements = recorder.elements
        XCTAssertEqual(elements, Array(0..<elements.count))
        XCTAssertEqual(recorder.events.last, .completed)
        XCTAssertEqual(recorder.overlappingDeliveries, 0)
        XCTAssertFalse(subject.hasObservers)
    }
}

private final class PullCounter: @unchecked Sendable {
    // Sendable: used on the test's thread only.
    var count = 0
}
