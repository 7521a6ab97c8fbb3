import Rx
import RxTesting
import XCTest

/// The operators every trait shares: time, schedulers, errors, `using`, `timer`.
final class PrimitiveSequenceOperatorTests: RxTestCase {
    // MARK: delay

    func testDelay_eachEventIsItsOwnStepAfterTheDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).delay(.seconds(2), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(202, 1), .completed(203)])
    }

    func testDelay_shiftsASourceThatSucceedsLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(250, 1), .completed(250)])
        let res = scheduler.start { xs.asSingle().delay(.seconds(10), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(260, 1), .completed(261)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDelay_errorIsNotDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.error(250, testError)])
        let res = scheduler.start { xs.asSingle().delay(.seconds(10), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDelay_completableCompletionIsDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Completable.empty().delay(.seconds(5), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(205)])
    }

    func testDelay_disposalBeforeTheDueTimeDeliversNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 201) { Single.just(1).delay(.seconds(5), scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
    }

    // MARK: delaySubscription

    func testDelaySubscription_subscribesAfterTheDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).delaySubscription(.seconds(2), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(202, 1), .completed(202)])
    }

    func testDelaySubscription_subscriptionRangeStartsLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        let res = scheduler.start { xs.asSingle().delaySubscription(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 1), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(230, 240)])
    }

    func testDelaySubscription_neverDueTimeNeverSubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        let res = scheduler.start { xs.asSingle().delaySubscription(.never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [])
    }

    // MARK: observe(on:) / subscribe(on:)

    func testObserveOn_deliversEachEventInItsOwnStep() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 1), .completed(202)])
    }

    func testObserveOn_sourceSubscriptionEndsWithTheSourcesTerminalEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys: TestableObservable<Int> = scheduler.createHotObservable([.error(250, testError)])
        let res = scheduler.start { ys.asSingle().observe(on: scheduler) }
        XCTAssertEqual(res.events, [.error(251, testError)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testObserveOn_disposalDropsEventsNotYetDelivered() {
        let scheduler = TestScheduler(initialClock: 0)
        // The disposal at 202 was scheduled first, so it runs before the completion's step.
        let res = scheduler.start(disposed: 202) { Single.just(1).observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 1)])
    }

    func testSubscribeOn_subscribesAndDisposesOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let subscribedAt = TraitsBox<Int?>(nil)
        let disposedAt = TraitsBox<Int?>(nil)
        let res = scheduler.start {
            Maybe<Int>.create { _ in
                subscribedAt.value = scheduler.clock
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
            .subscribe(on: scheduler)
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(subscribedAt.value, 201)
        XCTAssertEqual(disposedAt.value, 1001)

        let justScheduler = TestScheduler(initialClock: 0)
        XCTAssertEqual(
            justScheduler.start { Single.just(1).subscribe(on: justScheduler) }.events,
            [.next(201, 1), .completed(201)])
    }

    func testSubscribeOn_terminalEventIsDeliveredAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Never> = scheduler.createHotObservable([.completed(300)])
        let res = scheduler.start { xs.asCompletable().subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.completed(300)])
        // `asCompletable()` ends its own subscription with the completion, as RxSwift's
        // wrapper of a test observable does.
        XCTAssertEqual(xs.subscriptions, [Subscription(201, 300)])
    }

    func testSubscribeOn_disposalIsScheduledToo() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2)])
        let res = scheduler.start { xs.asMaybe().subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(201, 1001)])
    }

    // MARK: catch / retry

    func testCatch_continuesWithTheHandlersSequence() {
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).catch { _ in Single.just(2) } },
            [.next(200, 2), .completed(200)])
        XCTAssertEqual(traitsEvents { Single.just(1).catch { _ in Single.just(2) } }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Completable.error(testError).catch { _ in Completable.empty() } }, [.completed(200)])
    }

    func testCatch_handlerErrorEndsTheSequence() {
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).catch { _ in throw testError2 } }, [.error(200, testError2)])
    }

    func testCatch_fallbackIsSubscribedAtTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.error(230, testError)])
        let ys = scheduler.createColdObservable([.next(20, 5), .completed(20)])
        let res = scheduler.start { xs.asSingle().catch { _ in ys.asSingle() } }
        XCTAssertEqual(res.events, [.next(250, 5), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(230, 250)])
    }

    func testCatchAndReturn_succeedsWithTheElement() {
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).catchAndReturn(2) }, [.next(200, 2), .completed(200)])
    }

    func testRetry_resubscribesUpToTheAttemptCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([Recorded<Event<Int>>.error(10, testError)])
        let res = scheduler.start { xs.asSingle().retry(3) }
        XCTAssertEqual(res.events, [.error(230, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210), Subscription(210, 220), Subscription(220, 230)])
    }

    func testRetry_stopsAtTheFirstSuccess() {
        let attempts = TraitsBox(0)
        let flaky = Single<Int>.create { observer in
            let attempt = attempts.update { value -> Int in
                value += 1
                return value
            }
            observer(attempt < 3 ? .failure(testError) : .success(attempt))
            return Disposables.create()
        }
        XCTAssertEqual(traitsEvents { flaky.retry(5) }, [.next(200, 3), .completed(200)])
        XCTAssertEqual(attempts.value, 3)
    }

    func testRetry_zeroOrNegativeCountCompletesWithoutSubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        XCTAssertEqual(scheduler.start { xs.asMaybe().retry(0) }.events, [.completed(200)])
        XCTAssertEqual(traitsEvents { Completable.error(testError).retry(-1) }, [.completed(200)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testRetry_synchronousFailuresDoNotGrowTheStack() {
        let attempts = TraitsBox(0)
        let failing = Completable.create { observer in
            attempts.value += 1
            observer(.error(testError))
            return Disposables.create()
        }
        var errors: [String] = []
        _ = failing.retry(100_000).subscribe(onError: { errors.append("\($0)") })
        XCTAssertEqual(errors, ["TestError(1)"])
        XCTAssertEqual(attempts.value, 100_000)
    }

    func testRetryWhen_retriesWhenTheTriggerEmits() {
        let isFirst = TraitsBox(true)
        let source = Single<Int>.error(testError).catch { error in
            defer { isFirst.value = false }
            return isFirst.value ? Single.error(error) : Single.just(2)
        }
        XCTAssertEqual(
            traitsEvents { source.retry(when: { (errors: Observable<Error>) in errors }) },
            [.next(200, 2), .completed(200)])
        isFirst.value = true
        XCTAssertEqual(
            traitsEvents { source.retry(when: { (errors: Observable<TestError>) in errors }) },
            [.next(200, 2), .completed(200)])
    }

    func testRetryWhen_resubscribesAtTheTriggersElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([Recorded<Event<Int>>.error(10, testError)])
        // The element at 205 comes before any error: it triggers nothing.
        let trigger = scheduler.createHotObservable([.next(205, 0), .next(250, 0), .next(300, 0)])
        let res = scheduler.start { xs.asSingle().retry(when: { (_: Observable<Error>) in trigger }) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210), Subscription(250, 260), Subscription(300, 310)])
        XCTAssertEqual(trigger.subscriptions, [Subscription(200, 1000)])
    }

    func testRetryWhen_triggerCompletionOrErrorEndsTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([Recorded<Event<Int>>.error(10, testError)])
        let res = scheduler.start {
            xs.asSingle().retry(when: { (errors: Observable<Error>) in Observable<Int>.empty() })
        }
        XCTAssertEqual(res.events, [.completed(210)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])

        XCTAssertEqual(
            traitsEvents {
                Single<Int>.error(testError).retry(when: { (errors: Observable<Error>) in
                    errors.map { _ -> Int in throw testError2 }
                })
            }, [.error(200, testError2)])
    }

    func testRetryWhen_errorOfAnotherTypeEndsTheSequence() {
        XCTAssertEqual(
            traitsEvents {
                Single<Int>.error(RxError.unknown).retry(when: { (errors: Observable<TestError>) in errors })
            },
            [.error(200, RxError.unknown)])
    }

    // MARK: timeout

    func testTimeout_failsWhenTheSourceIsTooSlow() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(5), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(205, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
    }

    func testTimeout_switchesToTheOtherSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let ys = scheduler.createColdObservable([.next(20, 2), .completed(20)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(5), other: ys.asSingle(), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(225, 2), .completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
        XCTAssertEqual(ys.subscriptions, [Subscription(205, 225)])
    }

    func testTimeout_fastSourceWins() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let ys = scheduler.createColdObservable([.next(20, 2), .completed(20)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(30), other: ys.asSingle(), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(220, 1), .completed(220)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testTimeout_neverDueTimeNeverFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.never().timeout(.never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
    }

    // MARK: using / timer

    func testUsing_disposesTheResourceWhenTheSingleEnds() {
        let scheduler = TestScheduler(initialClock: 0)
        let resource = TraitsBox<TraitsMockDisposable?>(nil)
        let xs = scheduler.createColdObservable([.next(100, 200), .completed(100)])
        let res = scheduler.start {
            Single<Int>.using(
                { () -> TraitsMockDisposable in
                    let disposable = TraitsMockDisposable(scheduler: scheduler)
                    resource.value = disposable
                    return disposable
                },
                primitiveSequenceFactory: { _ in xs.asSingle() })
        }
        XCTAssertEqual(res.events, [.next(300, 200), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(resource.value?.ticks, [200, 300])
    }

    func testTimer_singleOfZeroAfterTheDueTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single<Int>.timer(.seconds(2), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(202, 0), .completed(202)])
    }
}
