import Rx
import RxTesting
import XCTest

final class CatchTests: RxTestCase {
    func testCatch_errorSwitchesToHandlerSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .error(230, testError)])
        let o2 = scheduler.createHotObservable([.next(220, 0), .next(240, 4), .completed(250)])
        let handlerCalls = ErrorsLocked<[TestTime]>([])
        let res = scheduler.start {
            o1.catch { error in
                XCTAssertEqual(error as? TestError, testError)
                handlerCalls.mutate { $0.append(scheduler.clock) }
                return o2.asObservable()
            }
        }
        XCTAssertEqual(handlerCalls.value, [230])
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .next(240, 4), .completed(250)])
        XCTAssertEqual(o1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(o2.subscriptions, [Subscription(230, 250)])
    }

    func testCatch_handlerThrowsEndsWithThrownError() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .error(230, testError)])
        let res = scheduler.start {
            o1.catch { _ -> Observable<Int> in throw testError2 }
        }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .error(230, testError2)])
        XCTAssertEqual(o1.subscriptions, [Subscription(200, 230)])
    }

    func testCatch_completionPassesThroughWithoutCallingHandler() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(210, 2), .completed(230)])
        let o2 = scheduler.createHotObservable([.next(240, 4), .completed(250)])
        let handlerCalls = ErrorsLocked(0)
        let res = scheduler.start {
            o1.catch { _ in
                handlerCalls.increment()
                return o2.asObservable()
            }
        }
        XCTAssertEqual(handlerCalls.value, 0)
        XCTAssertEqual(res.events, [.next(210, 2), .completed(230)])
        XCTAssertEqual(o1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(o2.subscriptions, [])
    }

    func testCatch_fallbackErrorIsDelivered() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(210, 2), .error(230, testError)])
        let o2 = scheduler.createColdObservable([.next(10, 3), .error(20, testError2)])
        let res = scheduler.start { o1.catch { _ in o2.asObservable() } }
        XCTAssertEqual(res.events, [.next(210, 2), .next(240, 3), .error(250, testError2)])
        XCTAssertEqual(o1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(o2.subscriptions, [Subscription(230, 250)])
    }

    func testCatch_disposeWhileOnFallbackDisposesFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(210, 2), .error(230, testError)])
        let o2 = scheduler.createColdObservable([.next(10, 3), .next(100, 4)])
        let res = scheduler.start(disposed: 300) { o1.catch { _ in o2.asObservable() } }
        XCTAssertEqual(res.events, [.next(210, 2), .next(240, 3)])
        XCTAssertEqual(o1.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(o2.subscriptions, [Subscription(230, 300)])
    }

    func testCatch_neverSourceStaysSubscribedUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let o1 = scheduler.createHotObservable([.next(150, 1)])
        let o2 = scheduler.createHotObservable([.next(240, 4)])
        let res = scheduler.start { o1.catch { _ in o2.asObservable() } }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(o1.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(o2.subscriptions, [])
    }

    func testCatch_synchronousErrorAndFallbackDeliverDuringSubscribe() {
        var events: [Event<Int>] = []
        _ = Observable<Int>.error(testError)
            .catch { _ in Observable.of(7, 8) }
            .subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(7), .next(8), .completed])
    }

    func testCatchAndReturn_errorBecomesElementThenCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(230, testError)])
        let res = scheduler.start { xs.catchAndReturn(-1) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(230, -1), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testCatchAndReturn_completionIsUntouched() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(230)])
        let res = scheduler.start { xs.catchAndReturn(-1) }
        XCTAssertEqual(res.events, [.next(210, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testCatch_disposingInsideFallbackHandlerStopsDelivery() {
        let subject = PublishSubject<Int>()
        let box = ErrorsDisposableBox()
        var seen: [Int] = []
        box.disposable = Observable<Int>.error(testError)
            .catch { _ in subject.asObservable() }
            .subscribe(onNext: { value in
                seen.append(value)
                if value == 2 { box.disposable?.dispose() }
            })
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        XCTAssertEqual(seen, [1, 2])
        XCTAssertFalse(subject.hasObservers)
        box.disposable = nil
    }
}

// The deprecated names must keep compiling with RxSwift's labels; a deprecated function may
// call them without warnings. They only forward to the new names, which the tests cover.
@available(*, deprecated)
private func catchDeprecatedRenamesCompile(_ xs: Observable<Int>) {
    _ = xs.catchError { _ in .just(1) }
    _ = xs.catchErrorJustReturn(1)
    _ = Observable.catchError([xs, xs])
    _ = xs.retryWhen { (errors: Observable<Swift.Error>) in errors }
    _ = xs.retryWhen { (errors: Observable<TestError>) in errors }
    _ = xs.observeOn(CurrentThreadScheduler.instance)
    _ = xs.subscribeOn(CurrentThreadScheduler.instance)
}
