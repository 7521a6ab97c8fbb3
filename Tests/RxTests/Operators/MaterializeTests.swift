import Rx
import RxTesting
import XCTest

final class MaterializeTests: RxTestCase {
    func testMaterialize_elementsAndCompletionBecomeElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .next(220, 3), .completed(250)])
        let res = scheduler.start { xs.materialize() }
        XCTAssertEqual(
            res.events,
            [.next(210, .next(2)), .next(220, .next(3)), .next(250, .completed), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testMaterialize_errorBecomesElementThenCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(250, testError)])
        let res = scheduler.start { xs.materialize() }
        XCTAssertEqual(res.events, [.next(210, .next(2)), .next(250, .error(testError)), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testMaterialize_emptySourceEmitsCompletedEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .completed(250)])
        let res = scheduler.start { xs.materialize() }
        XCTAssertEqual(res.events, [.next(250, .completed), .completed(250)])
    }

    func testMaterialize_neverEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { xs.materialize() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testMaterialize_disposingOnTheTerminalElementSkipsCompletion() {
        let box = ErrorsDisposableBox()
        let subject = PublishSubject<Int>()
        var events: [Event<Event<Int>>] = []
        box.disposable = subject.materialize().subscribe { event in
            events.append(event)
            if case .next(let inner) = event, inner.isStopEvent { box.disposable?.dispose() }
        }
        subject.onNext(1)
        subject.onError(testError)
        XCTAssertEqual(events, [.next(.next(1)), .next(.error(testError))])
        box.disposable = nil
    }

    func testMaterializeThenDematerialize_roundTrips() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .error(250, testError)])
        let res = scheduler.start { xs.materialize().dematerialize() }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }
}
