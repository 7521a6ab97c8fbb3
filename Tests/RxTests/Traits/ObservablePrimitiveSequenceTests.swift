import Rx
import RxTesting
import XCTest

final class ObservablePrimitiveSequenceTests: RxTestCase {
    // MARK: asSingle

    func testAsSingle_noElementFailsWithNoElementsAtCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250), .error(260, testError)])
        let res = scheduler.start { xs.asSingle() }
        XCTAssertEqual(res.events, [.error(250, RxError.noElements)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testAsSingle_oneElementIsDeliveredAtCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(250), .error(260, testError)])
        let res = scheduler.start { xs.asSingle() }
        XCTAssertEqual(res.events, [.next(250, 2), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testAsSingle_secondElementFailsAtOnceAndDisposesUpstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .completed(250), .error(260, testError),
        ])
        let res = scheduler.start { xs.asSingle() }
        XCTAssertEqual(res.events, [.error(220, RxError.moreThanOneElement)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsSingle_errorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(205, 2), .error(210, testError)])
        let res = scheduler.start { xs.asSingle() }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testAsSingle_disposalMidwayUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(1100)])
        let res = scheduler.start { xs.asSingle() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testAsSingle_nilElementOfOptionalTypeIsAnElement() {
        var results: [String] = []
        _ = Observable<Int?>.just(nil).asSingle().subscribe(
            onSuccess: { results.append("success \(String(describing: $0))") },
            onFailure: { results.append("failure \($0)") })
        XCTAssertEqual(results, ["success nil"])
    }

    func testAsSingle_subscribeHandlersSeeTheOutcome() {
        var events: [String] = []
        _ = Observable.just(1).asSingle().subscribe { events.append(traitsDescribe($0)) }
        _ = Observable<Int>.error(testError).asSingle().subscribe { events.append(traitsDescribe($0)) }
        _ = Observable.of(1, 2).asSingle().subscribe { events.append(traitsDescribe($0)) }
        XCTAssertEqual(events, ["success(1)", "failure(TestError(1))", "failure(\(RxError.moreThanOneElement))"])
    }

    // MARK: asMaybe

    func testAsMaybe_noElementCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250), .error(260, testError)])
        let res = scheduler.start { xs.asMaybe() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testAsMaybe_oneElementIsDeliveredAtCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(250)])
        let res = scheduler.start { xs.asMaybe() }
        XCTAssertEqual(res.events, [.next(250, 2), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testAsMaybe_secondElementFailsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(250)])
        let res = scheduler.start { xs.asMaybe() }
        XCTAssertEqual(res.events, [.error(220, RxError.moreThanOneElement)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsMaybe_errorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(205, 2), .error(210, testError)])
        let res = scheduler.start { xs.asMaybe() }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    // MARK: first

    func testFirst_noElementGivesNil() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250), .error(260, testError)])
        let res = scheduler.start { xs.first().map { $0 ?? -1 } }
        XCTAssertEqual(res.events, [.next(250, -1), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testFirst_firstElementEndsAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(250)])
        let res = scheduler.start { xs.first().map { $0 ?? -1 } }
        XCTAssertEqual(res.events, [.next(210, 2), .completed(210)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testFirst_errorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .error(210, testError)])
        let res = scheduler.start { xs.first().map { $0 ?? -1 } }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    // MARK: asCompletable

    func testAsCompletable_completionIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Never> = scheduler.createHotObservable([.completed(250), .error(260, testError)])
        let res = scheduler.start { xs.asCompletable() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testAsCompletable_errorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs: TestableObservable<Never> = scheduler.createHotObservable([.error(210, testError)])
        let res = scheduler.start { xs.asCompletable() }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testAsCompletable_elementsAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.asCompletable() }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    /// As in RxSwift, a sequence whose element type nothing else fixes is taken to be of
    /// `Never` by `asCompletable()`.
    func testAsCompletable_infersNeverForAnUntypedSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let completable = scheduler.createColdObservable([.completed(20)]).asCompletable()
        let res = scheduler.start { completable }
        XCTAssertEqual(res.events, [.completed(220)])
    }
}
