import Foundation
import Rx
import RxTesting
import XCTest

private struct RetryWhenOtherError: Error, CustomStringConvertible {
    var description: String { "RetryWhenOtherError" }
}

final class RetryWhenTests: RxTestCase {
    func testRetryWhen_triggerCompletingBeforeAnyErrorDoesNotEndTheSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let trigger = scheduler.createHotObservable([.next(150, 1), .completed(210)])
        let res = scheduler.start(disposed: 300) {
            xs.retry(when: { (_: Observable<Swift.Error>) in trigger })
        }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(trigger.subscriptions, [Subscription(200, 210)])
    }

    func testRetryWhen_silentTriggerLeavesTheFailedSequenceWaiting() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .error(250, testError),
        ])
        let trigger = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.retry(when: { (_: Observable<TestError>) in trigger }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(trigger.subscriptions, [Subscription(200, 1000)])
    }

    func testRetryWhen_sourceCompletionPassesThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(100, 1), .next(150, 2), .next(200, 3), .completed(250)])
        let trigger = scheduler.createHotObservable([.next(150, 0), .completed(0)])
        let res = scheduler.start { xs.retry(when: { (_: Observable<TestError>) in trigger }) }
        XCTAssertEqual(res.events, [.next(300, 1), .next(350, 2), .next(400, 3), .completed(450)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 450)])
    }

    func testRetryWhen_triggerElementResubscribesAndTriggerErrorEnds() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .error(30, testError), .completed(40)])
        let count = ErrorsLocked(0)
        let res = scheduler.start(disposed: 300) {
            xs.retry(when: { (errors: Observable<TestError>) in
                errors.map { _ -> Int in
                    let attempt = count.increment()
                    if attempt == 2 { throw testError2 }
                    return attempt
                }
            })
        }
        XCTAssertEqual(
            res.events, [.next(210, 1), .next(220, 2), .next(240, 1), .next(250, 2), .error(260, testError2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230), Subscription(230, 260)])
    }

    func testRetryWhen_triggerCompletingAtTheErrorTickCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .error(30, testError), .completed(40)])
        let trigger = scheduler.createHotObservable([.next(150, 1), .completed(230)])
        let res = scheduler.start { xs.retry(when: { (_: Observable<TestError>) in trigger.asObservable() }) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testRetryWhen_triggerCompletingWhileWaitingCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .error(30, testError), .completed(40)])
        let count = ErrorsLocked(0)
        let res = scheduler.start(disposed: 300) {
            xs.retry(when: { (errors: Observable<TestError>) in
                Observable<Int>.create { observer in
                    errors.subscribe(onNext: { _ in
                        let attempt = count.increment()
                        if attempt < 2 { observer.onNext(attempt) } else { observer.onCompleted() }
                    })
                }
            })
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(240, 1), .next(250, 2), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230), Subscription(230, 260)])
    }

    func testRetryWhen_triggerErrorBeforeAnyFailureEndsAtTheFailure() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(50, testError)])
        let trigger = scheduler.createHotObservable([.error(220, testError2)] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.retry(when: { (_: Observable<TestError>) in trigger }) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(250, testError2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(trigger.subscriptions, [Subscription(200, 220)])
    }

    func testRetryWhen_incrementalBackOff() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 1), .error(10, testError)])
        let maxAttempts = 4
        let res = scheduler.start(disposed: 800) {
            xs.retry(when: { (errors: Observable<Swift.Error>) in
                // Waits 50, 100, 150 ticks before the retries, then gives up.
                Observable<Int>.create { observer in
                    let timers = CompositeDisposable()
                    let count = ErrorsLocked(0)
                    let errorsSubscription = errors.subscribe(onNext: { error in
                        let attempt = count.increment()
                        if attempt >= maxAttempts {
                            observer.onError(error)
                            return
                        }
                        timers.insert(
                            scheduler.scheduleRelative((), dueTime: .seconds(attempt * 50)) { _ in
                                observer.onNext(attempt)
                                return Disposables.create()
                            })
                    })
                    return Disposables.create(errorsSubscription, timers)
                }
            })
        }
        XCTAssertEqual(
            res.events, [.next(205, 1), .next(265, 1), .next(375, 1), .next(535, 1), .error(540, testError)])
        XCTAssertEqual(
            xs.subscriptions,
            [Subscription(200, 210), Subscription(260, 270), Subscription(370, 380), Subscription(530, 540)])
    }

    func testRetryWhen_errorOfAnotherTypeEndsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(5, 1), .error(10, testError)])
        let handlerCalls = ErrorsLocked(0)
        let res = scheduler.start(disposed: 800) {
            xs.retry(when: { (errors: Observable<RetryWhenOtherError>) in
                handlerCalls.increment()
                return errors
            })
        }
        XCTAssertEqual(res.events, [.next(205, 1), .error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(handlerCalls.value, 1)
    }

    func testRetryWhen_disposeReleasesSourceAndTrigger() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let trigger = scheduler.createHotObservable([.next(250, 0), .next(400, 0)])
        let res = scheduler.start(disposed: 300) { xs.retry(when: { (_: Observable<Swift.Error>) in trigger }) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(260, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(250, 270)])
        XCTAssertEqual(trigger.subscriptions, [Subscription(200, 300)])
    }

    func testRetryWhen_triggerElementsWhileSourceRunsAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(100, testError)])
        let trigger = scheduler.createHotObservable([.next(220, 0), .next(230, 0), .next(320, 0)])
        let res = scheduler.start(disposed: 400) { xs.retry(when: { (_: Observable<Swift.Error>) in trigger }) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(330, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300), Subscription(320, 400)])
    }

    func testRetryWhen_handlerRunsOncePerSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let handlerCalls = ErrorsLocked(0)
        let retried = xs.retry(when: { (errors: Observable<Swift.Error>) in
            handlerCalls.increment()
            return errors
        })
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.advanceTo(200)
        let firstSubscription = retried.subscribe(first)
        scheduler.advanceTo(205)
        let secondSubscription = retried.subscribe(second)
        scheduler.advanceTo(240)
        firstSubscription.dispose()
        secondSubscription.dispose()
        XCTAssertEqual(handlerCalls.value, 2)
        XCTAssertEqual(first.events, [.next(210, 1), .next(230, 1)])
        XCTAssertEqual(second.events, [.next(215, 1), .next(235, 1)])
        XCTAssertEqual(
            xs.subscriptions,
            [
                Subscription(200, 220), Subscription(205, 225), Subscription(220, 240), Subscription(225, 240),
                Subscription(240, 240),
            ])
    }

    func testRetryWhen_synchronousFailuresAndTriggerDoNotGrowTheStack() {
        let attempts = ErrorsLocked(0)
        let failing = Observable<Int>.create { observer in
            let attempt = attempts.increment()
            if attempt < 50_000 {
                observer.onError(testError)
            } else {
                observer.onNext(attempt)
                observer.onCompleted()
            }
            return Disposables.create()
        }
        var events: [Event<Int>] = []
        _ = failing.retry(when: { (errors: Observable<Swift.Error>) in errors }).subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(50_000), .completed])
    }

    func testRetryWhen_sourceThatFailsOnceThenContinues() {
        let attempts = ErrorsLocked(0)
        let source = Observable<Int>.create { observer in
            observer.onNext(0)
            observer.onNext(1)
            if attempts.increment() < 2 { observer.onError(testError) }
            observer.onNext(2)
            observer.onCompleted()
            return Disposables.create()
        }
        var events: [Event<Int>] = []
        _ = source.retry(when: { (errors: Observable<Swift.Error>) in errors }).subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(0), .next(1), .next(0), .next(1), .next(2), .completed])
    }

    func testRetryWhen_triggerEndingBeforeThePendingAttemptStartsEndsTheSequence() {
        // The source fails during its subscription, so the next attempt waits on the
        // trampoline; the trigger answers and completes at once: no second attempt.
        let attempts = ErrorsLocked(0)
        let failing = Observable<Int>.create { observer in
            attempts.increment()
            observer.onError(testError)
            return Disposables.create()
        }
        var events: [Event<Int>] = []
        _ = failing.retry(when: { (errors: Observable<Swift.Error>) in
            Observable<Int>.create { observer in
                errors.subscribe(onNext: { _ in
                    observer.onNext(1)
                    observer.onCompleted()
                })
            }
        })
        .subscribe { events.append($0) }
        XCTAssertEqual(events, [.completed])
        XCTAssertEqual(attempts.value, 1)
    }

    func testRetryWhen_triggerAnsweringTwiceResubscribesOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .error(20, testError)])
        let res = scheduler.start(disposed: 240) {
            xs.retry(when: { (errors: Observable<Swift.Error>) in
                Observable<Int>.create { observer in
                    errors.subscribe(onNext: { _ in
                        observer.onNext(1)
                        observer.onNext(2)
                    })
                }
            })
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220), Subscription(220, 240)])
    }
}
