import Rx
import RxTesting
import XCTest

final class ElementAtTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler, end: Recorded<Event<Int>>) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), end,
        ])
    }

    func testElementAt_emitsTheElementAndCompletesAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(300))
        let res = scheduler.start { xs.element(at: 2) }
        XCTAssertEqual(res.events, [.next(230, 4), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testElementAt_indexZeroIsTheFirstElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(300))
        let res = scheduler.start { xs.element(at: 0) }
        XCTAssertEqual(res.events, [.next(210, 2), .completed(210)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testElementAt_pastTheEndFailsWithArgumentOutOfRange() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(300))
        let res = scheduler.start { xs.element(at: 10) }
        XCTAssertEqual(res.events, [.error(300, RxError.argumentOutOfRange)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testElementAt_negativeIndexFailsWithoutSubscribing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(300))
        let res = scheduler.start { xs.element(at: -1) }
        XCTAssertEqual(res.events, [.error(200, RxError.argumentOutOfRange)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testElementAt_errorBeforeTheIndexIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .error(300, testError))
        let res = scheduler.start { xs.element(at: 10) }
        XCTAssertEqual(res.events, [.error(300, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testElementAt_errorAfterTheIndexIsNotSeen() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .error(300, testError))
        let res = scheduler.start { xs.element(at: 1) }
        XCTAssertEqual(res.events, [.next(220, 3), .completed(220)])
    }

    func testElementAt_disposeBeforeTheIndexEmitsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(300))
        let res = scheduler.start(disposed: 225) { xs.element(at: 3) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
    }

    func testElementAt_reentrantElementIsDropped() {
        let subject = PublishSubject<Int>()
        var events: [Event<Int>] = []
        _ = subject.element(at: 1).subscribe { event in
            events.append(event)
            if case .next = event { subject.onNext(99) }
        }
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(events, [.next(2), .completed])
    }

    @available(*, deprecated)
    func testElementAtDeprecated_isElementAt() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = makeSource(scheduler, end: .completed(300))
        let res = scheduler.start { xs.elementAt(2) }
        XCTAssertEqual(res.events, [.next(230, 4), .completed(230)])
    }
}
