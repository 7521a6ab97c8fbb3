import Rx
import RxTesting
import XCTest

final class AsyncSubjectTests: RxTestCase {
    func testAsyncSubject_deliversLastElementAndCompletionWhenSourceCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 0), .next(210, 1), .next(260, 2), .completed(300), .next(310, 9),
        ])
        let subject = AsyncSubject<Int>()
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = xs.subscribe(subject) }
        scheduler.scheduleAt(400) { _ = subject.subscribe(late) }
        let res = scheduler.start(created: 100, subscribed: 220, disposed: 1000) { subject }
        XCTAssertEqual(res.events, [.next(300, 2), .completed(300)])
        XCTAssertEqual(late.events, [.next(400, 2), .completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200)])
    }

    func testAsyncSubject_emptySourceDeliversOnlyCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.completed(300)] as [Recorded<Event<Int>>])
        let subject = AsyncSubject<Int>()
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = xs.subscribe(subject) }
        scheduler.scheduleAt(400) { _ = subject.subscribe(late) }
        let res = scheduler.start { subject }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(late.events, [.completed(400)])
    }

    func testAsyncSubject_errorDropsLastElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(300, testError), .completed(310)])
        let subject = AsyncSubject<Int>()
        let late = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = xs.subscribe(subject) }
        scheduler.scheduleAt(400) { _ = subject.subscribe(late) }
        let res = scheduler.start { subject }
        XCTAssertEqual(res.events, [.error(300, testError)])
        XCTAssertEqual(late.events, [.error(400, testError)])
    }

    func testAsyncSubject_observerDisposedBeforeCompletionGetsNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(600)])
        let subject = AsyncSubject<Int>()
        scheduler.scheduleAt(200) { _ = xs.subscribe(subject) }
        let res = scheduler.start(disposed: 500) { subject }
        XCTAssertEqual(res.events, [])
        XCTAssertFalse(subject.hasObservers)
    }

    func testAsyncSubject_neverEndingSourceDeliversNothing() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2)])
        let subject = AsyncSubject<Int>()
        var feed: Disposable?
        scheduler.scheduleAt(200) { feed = xs.subscribe(subject) }
        scheduler.scheduleAt(1000) { feed?.dispose() }
        let res = scheduler.start { subject }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testAsyncSubject_hasObserversTracksSubscriptionsUntilTermination() {
        let subject = AsyncSubject<Int>()
        XCTAssertFalse(subject.hasObservers)
        let first = subject.subscribe()
        let second = subject.subscribe()
        XCTAssertTrue(subject.hasObservers)
        first.dispose()
        XCTAssertTrue(subject.hasObservers)
        subject.onCompleted()
        XCTAssertFalse(subject.hasObservers)
        second.dispose()
    }

    func testAsyncSubject_disposeFailsNewObserversAndIgnoresEvents() {
        let subject = AsyncSubject<Int>()
        var events: [Event<Int>] = []
        let subscription = subject.subscribe { events.append($0) }
        subject.onNext(1)
        subject.dispose()
        XCTAssertTrue(subject.isDisposed)
        subject.onCompleted()
        XCTAssertEqual(events, [])
        _ = subject.subscribe { events.append($0) }
        guard case RxError.disposed? = events.first?.error as? RxError else { return XCTFail("expected disposed") }
        subscription.dispose()
    }

    func testAsyncSubject_observerResubscribingFromCompletionGetsTheSameEnding() {
        let subject = AsyncSubject<Int>()
        var events: [Event<Int>] = []
        _ = subject.subscribe { event in
            events.append(event)
            if event.isCompleted { _ = subject.subscribe { events.append($0) } }
        }
        subject.onNext(7)
        subject.onCompleted()
        XCTAssertEqual(events, [.next(7), .completed, .next(7), .completed])
    }
}
