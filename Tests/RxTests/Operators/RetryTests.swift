import Rx
import RxTesting
import XCTest

final class RetryTests: RxTestCase {
    // MARK: retry()

    func testRetry_completingSourceIsSubscribedOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(100, 1), .next(150, 2), .next(200, 3), .completed(250)])
        let res = scheduler.start { xs.retry() }
        XCTAssertEqual(res.events, [.next(300, 1), .next(350, 2), .next(400, 3), .completed(450)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 450)])
    }

    func testRetry_silentSourceStaysSubscribedUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(100, 1), .next(150, 2), .next(200, 3)])
        let res = scheduler.start { xs.retry() }
        XCTAssertEqual(res.events, [.next(300, 1), .next(350, 2), .next(400, 3)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testRetry_resubscribesAtTheTickOfEachError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([
            .next(100, 1), .next(150, 2), .next(200, 3), .error(250, testError),
        ])
        let res = scheduler.start(disposed: 1100) { xs.retry() }
        XCTAssertEqual(
            res.events,
            [
                .next(300, 1), .next(350, 2), .next(400, 3), .next(550, 1), .next(600, 2), .next(650, 3),
                .next(800, 1), .next(850, 2), .next(900, 3), .next(1050, 1),
            ])
        XCTAssertEqual(
            xs.subscriptions,
            [Subscription(200, 450), Subscription(450, 700), Subscription(700, 950), Subscription(950, 1100)])
    }

    func testRetry_hotSourceIsResubscribedAfterError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .error(220, testError), .next(230, 2), .error(240, testError), .next(250, 3),
            .completed(260),
        ])
        let res = scheduler.start { xs.retry() }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .next(250, 3), .completed(260)])
        XCTAssertEqual(
            xs.subscriptions, [Subscription(200, 220), Subscription(220, 240), Subscription(240, 260)])
    }

    func testRetry_manySynchronousFailuresDoNotGrowTheStack() {
        let attempts = ErrorsLocked(0)
        let failing = Observable<Int>.create { observer in
            let attempt = attempts.increment()
            if attempt < 100_000 {
                observer.onError(testError)
            } else {
                observer.onNext(attempt)
                observer.onCompleted()
            }
            return Disposables.create()
        }
        var events: [Event<Int>] = []
        _ = failing.retry().subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(100_000), .completed])
        XCTAssertEqual(attempts.value, 100_000)
    }

    func testRetry_disposalByDownstreamStopsSynchronousAttempts() {
        let attempts = ErrorsLocked(0)
        // Fails synchronously forever; only the disposal below can stop it.
        let failing = Observable<Int>.create { observer in
            observer.onNext(attempts.increment())
            observer.onError(testError)
            return Disposables.create()
        }
        // Completes (and so disposes its source) at the 1000th element.
        let firstThousand = Observable<Int>.create { observer in
            failing.retry().subscribe { event in
                guard case .next(let value) = event else { return }
                observer.onNext(value)
                if value == 1000 { observer.onCompleted() }
            }
        }
        var received = 0
        var completed = false
        _ = firstThousand.subscribe(onNext: { _ in received += 1 }, onCompleted: { completed = true })
        XCTAssertEqual(received, 1000)
        XCTAssertTrue(completed)
        XCTAssertEqual(attempts.value, 1000)
    }

    func testRetryCount_synchronousFailuresAttemptExactlyTheCount() {
        let attempts = ErrorsLocked(0)
        let source = Observable<Int>.create { observer in
            observer.onNext(attempts.increment())
            observer.onError(testError)
            return Disposables.create()
        }
        var events: [Event<Int>] = []
        _ = source.retry(3).subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(1), .next(2), .next(3), .error(testError)])
        XCTAssertEqual(attempts.value, 3)
    }

    // MARK: retry(_:)

    func testRetryCount_errorAfterLastAttempt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 1), .next(10, 2), .next(15, 3), .error(20, testError)])
        let res = scheduler.start { xs.retry(3) }
        XCTAssertEqual(
            res.events,
            [
                .next(205, 1), .next(210, 2), .next(215, 3), .next(225, 1), .next(230, 2), .next(235, 3),
                .next(245, 1), .next(250, 2), .next(255, 3), .error(260, testError),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(220, 240), Subscription(240, 260)])
    }

    func testRetryCount_disposeDuringSecondAttempt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 1), .next(10, 2), .next(15, 3), .error(20, testError)])
        let res = scheduler.start(disposed: 231) { xs.retry(3) }
        XCTAssertEqual(res.events, [.next(205, 1), .next(210, 2), .next(215, 3), .next(225, 1), .next(230, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(220, 231)])
    }

    func testRetryCount_completionEndsAttempts() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(100, 1), .next(150, 2), .next(200, 3), .completed(250)])
        let res = scheduler.start { xs.retry(3) }
        XCTAssertEqual(res.events, [.next(300, 1), .next(350, 2), .next(400, 3), .completed(450)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 450)])
    }

    func testRetryCount_oneAttemptLetsTheErrorThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 1), .error(20, testError)])
        let res = scheduler.start { xs.retry(1) }
        XCTAssertEqual(res.events, [.next(205, 1), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testRetryCount_zeroCompletesWithoutSubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 1), .error(20, testError)])
        let res = scheduler.start { xs.retry(0) }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testRetryCount_negativeFailsWithArgumentOutOfRange() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 1), .completed(20)])
        let res = scheduler.start { xs.retry(-1) }
        XCTAssertEqual(res.events, [.error(200, RxError.argumentOutOfRange)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    // MARK: catch(sequence:)

    func testCatchSequence_movesOnAfterEachErrorUntilOneCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .next(30, 3), .error(40, testError)])
        let xs2 = scheduler.createColdObservable([.next(10, 4), .next(20, 5), .error(30, testError)])
        let xs3 = scheduler.createColdObservable([
            .next(10, 6), .next(20, 7), .next(30, 8), .next(40, 9), .completed(50),
        ])
        let res = scheduler.start {
            Observable.catch(sequence: [xs1.asObservable(), xs2.asObservable(), xs3.asObservable()])
        }
        XCTAssertEqual(
            res.events,
            [
                .next(210, 1), .next(220, 2), .next(230, 3), .next(250, 4), .next(260, 5), .next(280, 6),
                .next(290, 7), .next(300, 8), .next(310, 9), .completed(320),
            ])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(240, 270)])
        XCTAssertEqual(xs3.subscriptions, [Subscription(270, 320)])
    }

    func testCatchSequence_firstCompletionEndsWithoutTouchingTheRest() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(230)])
        let xs2 = scheduler.createHotObservable([.next(240, 4), .completed(250)])
        let res = scheduler.start { Observable.catch(sequence: [xs1, xs2].map { $0.asObservable() }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(230)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(xs2.subscriptions, [])
    }

    func testCatchSequence_neverFirstSourceHoldsSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createHotObservable([.next(150, 1)])
        let xs2 = scheduler.createHotObservable([.next(240, 4), .completed(250)])
        let res = scheduler.start { Observable.catch(sequence: [xs1, xs2].map { $0.asObservable() }) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(xs2.subscriptions, [])
    }

    func testCatchSequence_lastErrorIsDeliveredWhenAllFail() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .error(230, testError)])
        let xs2 = scheduler.createHotObservable([.next(150, 1), .error(250, testError2)])
        let res = scheduler.start { Observable.catch(sequence: [xs1, xs2].map { $0.asObservable() }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .error(250, testError2)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(230, 250)])
    }

    func testCatchSequence_errorThenNeverKeepsSecondSubscribed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .error(230, testError)])
        let xs2 = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { Observable.catch(sequence: [xs1, xs2].map { $0.asObservable() }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(230, 1000)])
    }

    func testCatchSequence_hotSourcesInTurn() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs1 = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(215, testError)])
        let xs2 = scheduler.createHotObservable([.next(220, 3), .error(225, testError)])
        let xs3 = scheduler.createHotObservable([.next(230, 4), .completed(235)])
        let res = scheduler.start {
            Observable.catch(sequence: [xs1.asObservable(), xs2.asObservable(), xs3.asObservable()])
        }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .completed(235)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 215)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(215, 225)])
        XCTAssertEqual(xs3.subscriptions, [Subscription(225, 235)])
    }

    func testCatchSequence_emptySequenceCompletesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.catch(sequence: [Observable<Int>]()) }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testCatchSequence_iteratesTheSequenceAnewForEachSubscription() {
        let made = ErrorsLocked(0)
        let sources = (0..<2).lazy.map { index -> Observable<Int> in
            made.increment()
            return index == 0 ? .error(testError) : .just(index)
        }
        let catching = Observable.catch(sequence: sources)
        var events: [Event<Int>] = []
        _ = catching.subscribe { events.append($0) }
        _ = catching.subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(1), .completed, .next(1), .completed])
        XCTAssertEqual(made.value, 4)
    }
}
