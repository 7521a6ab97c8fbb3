import Rx
import RxTesting
import XCTest

/// `Maybe.ifEmpty(default:)` and `ifEmpty(switchTo:)`, and the traits' deprecated
/// spellings that RxSwift 6 keeps.
final class TraitsIfEmptyTests: RxTestCase {
    // MARK: ifEmpty(default:)

    func testIfEmptyDefault_emptyMaybeSucceedsWithTheDefault() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let res = scheduler.start { () -> Single<Int> in xs.asMaybe().ifEmpty(default: 5) }
        XCTAssertEqual(res.events, [.next(250, 5), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testIfEmptyDefault_keepsTheElementAndTheError() {
        XCTAssertEqual(traitsEvents { Maybe.just(1).ifEmpty(default: 5) }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(traitsEvents { Maybe<Int>.error(testError).ifEmpty(default: 5) }, [.error(200, testError)])
    }

    // MARK: ifEmpty(switchTo:)

    func testIfEmptySwitchToMaybe_emptyMaybeContinuesWithTheOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let ys = scheduler.createColdObservable([.next(10, 7), .completed(10)])
        let res = scheduler.start { () -> Maybe<Int> in xs.asMaybe().ifEmpty(switchTo: ys.asMaybe()) }
        XCTAssertEqual(res.events, [.next(260, 7), .completed(260)])
        XCTAssertEqual(ys.subscriptions, [Subscription(250, 260)])
    }

    func testIfEmptySwitchToMaybe_otherMayBeEmptyToo() {
        XCTAssertEqual(traitsEvents { Maybe<Int>.empty().ifEmpty(switchTo: Maybe<Int>.empty()) }, [.completed(200)])
    }

    func testIfEmptySwitchToMaybe_nonEmptyMaybeNeverSubscribesTheOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(240, 1), .completed(250)])
        let ys = scheduler.createColdObservable([.next(10, 7), .completed(10)])
        let res = scheduler.start { xs.asMaybe().ifEmpty(switchTo: ys.asMaybe()) }
        XCTAssertEqual(res.events, [.next(250, 1), .completed(250)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testIfEmptySwitchToSingle_emptyMaybeBecomesTheSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Int> = scheduler.createHotObservable([.completed(250)])
        let ys = scheduler.createColdObservable([.next(10, 7), .completed(10)])
        let res = scheduler.start { () -> Single<Int> in xs.asMaybe().ifEmpty(switchTo: ys.asSingle()) }
        XCTAssertEqual(res.events, [.next(260, 7), .completed(260)])
        XCTAssertEqual(ys.subscriptions, [Subscription(250, 260)])
    }

    func testIfEmptySwitchToSingle_errorIsKept() {
        XCTAssertEqual(
            traitsEvents { Maybe<Int>.error(testError).ifEmpty(switchTo: Single.just(7)) }, [.error(200, testError)])
        XCTAssertEqual(
            traitsEvents { Maybe<Int>.empty().ifEmpty(switchTo: Single<Int>.error(testError2)) },
            [.error(200, testError2)])
    }

    // MARK: deprecated spellings

    @available(*, deprecated)
    func testDeprecatedSchedulerSpellings_forwardToTheNewNames() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Single.just(1).subscribeOn(scheduler).observeOn(scheduler)
        }
        // One step to subscribe, one for each delivered event.
        XCTAssertEqual(res.events, [.next(202, 1), .completed(203)])
    }

    @available(*, deprecated)
    func testDeprecatedCatchSpellings_forwardToTheNewNames() {
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).catchError { _ in .just(2) } },
            [.next(200, 2), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).catchErrorJustReturn(3) }, [.next(200, 3), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Maybe<Int>.error(testError).catchErrorJustReturn(4) }, [.next(200, 4), .completed(200)])
    }

    @available(*, deprecated)
    func testDeprecatedRetryWhen_resubscribesOnTheTrigger() {
        let attempts = TraitsBox(0)
        let failingOnce = Single<Int>.deferred {
            let attempt = attempts.update { count -> Int in
                count += 1
                return count
            }
            return attempt == 1 ? .error(testError) : .just(attempt)
        }
        XCTAssertEqual(
            traitsEvents { failingOnce.retryWhen { (errors: Observable<Swift.Error>) in errors } },
            [.next(200, 2), .completed(200)])
        attempts.value = 0
        XCTAssertEqual(
            traitsEvents { failingOnce.retryWhen { (errors: Observable<TestError>) in errors } },
            [.next(200, 2), .completed(200)])
    }

    @available(*, deprecated)
    func testDeprecatedSubscribeOnError_isOnFailure() {
        var log: [String] = []
        _ = Single<Int>.error(testError).subscribe(
            onSuccess: { log.append("success \($0)") }, onError: { log.append("error \($0)") },
            onDisposed: { log.append("disposed") })
        _ = Single.just(1).subscribe(onSuccess: { log.append("success \($0)") }, onError: { _ in })
        XCTAssertEqual(log, ["error TestError(1)", "disposed", "success 1"])
    }
}
