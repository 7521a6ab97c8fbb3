import Rx
import RxTesting
import XCTest

final class SkipUntilTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
    }

    func testSkipUntil_forwardsAfterOtherEmitsAndReleasesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r = scheduler.createHotObservable([.next(150, 1), .next(225, 99), .completed(230)])
        let res = scheduler.start { l.skip(until: r) }
        XCTAssertEqual(res.events, [.next(230, 4), .next(240, 5), .completed(250)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testSkipUntil_otherErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .error(225, testError)])
        let res = scheduler.start { l.skip(until: r) }
        XCTAssertEqual(res.events, [.error(225, testError)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 225)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testSkipUntil_sourceErrorIsForwardedAndReleasesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(220, testError)])
        let r = scheduler.createHotObservable([.next(150, 1), .next(230, 2), .completed(250)])
        let res = scheduler.start { l.skip(until: r) }
        XCTAssertEqual(res.events, [.error(220, testError)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 220)])
    }

    func testSkipUntil_sourceCompletingBeforeOtherEndsWithoutEvent() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .completed(225)])
        let res = scheduler.start { l.skip(until: r) }
        // As in RxSwift: no `completed`, but everything is released.
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testSkipUntil_silentOtherIsReleasedWhenSourceCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { l.skip(until: r) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 250)])
    }

    func testSkipUntil_otherErrorAfterSourceEndedIsNotSeen() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .error(300, testError)])
        let res = scheduler.start { l.skip(until: r) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 250)])
    }

    func testSkipUntil_neverSourceKeepsRunningAfterOtherFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let l: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let r = scheduler.createHotObservable([.next(150, 1), .next(225, 2), .completed(250)])
        let res = scheduler.start { l.skip(until: r) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testSkipUntil_neverAndNeverRunUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let l: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { l.skip(until: r) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 1000)])
    }

    func testSkipUntil_disposeMidwayReleasesBoth() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r = scheduler.createHotObservable([.next(215, 1)])
        let res = scheduler.start(disposed: 235) { l.skip(until: r) }
        XCTAssertEqual(res.events, [.next(220, 3), .next(230, 4)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 235)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 215)])
    }

    func testSkipUntil_sourceIsSubscribedBeforeOther() {
        let order = FilterOrderLog()
        let source = Observable<Int>.create { _ in
            order.append("source")
            return Disposables.create()
        }
        let other = Observable<Int>.create { _ in
            order.append("other")
            return Disposables.create()
        }
        source.skip(until: other).subscribe().dispose()
        XCTAssertEqual(order.entries, ["source", "other"])
    }

    func testSkipUntil_synchronousOtherOpensTheGateAtOnce() {
        var seen: [Int] = []
        var completed = false
        _ = Observable.from([1, 2, 3]).skip(until: Observable.just(0)).subscribe(
            onNext: { seen.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(seen, [1, 2, 3])
        XCTAssertTrue(completed)
    }

    // A source that completes before `other` fires ends the subscription without an event
    // (RxSwift's semantics), so the subscriber never learns it is over and keeps the sink
    // as its upstream: the sink must let go of the subscriber, or the two keep each other
    // alive once the caller drops the disposable (RxTestCase's leak check fails then).
    func testSkipUntil_sourceCompletingWhileSubscribingReleasesTheSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let other: TestableObservable<Int> = scheduler.createColdObservable([.next(100, 1)])
        var events: [Event<Int>] = []
        _ = Observable.just(1).skip(until: other).subscribe { events.append($0) }
        XCTAssertEqual(events, [])
        XCTAssertEqual(other.subscriptions, [Subscription(0, 0)])
    }

    func testSkipUntil_sourceCompletingBeforeOtherFiresReleasesTheSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r = scheduler.createHotObservable([.next(150, 1), .next(300, 2)])
        var events: [Event<Int>] = []
        scheduler.scheduleAt(200) { _ = l.skip(until: r).subscribe { events.append($0) } }
        scheduler.start()
        XCTAssertEqual(events, [])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 250)])
    }

    @available(*, deprecated)
    func testSkipUntilDeprecated_isSkipUntil() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r = scheduler.createHotObservable([.next(225, 99)])
        let res = scheduler.start { l.skipUntil(r) }
        XCTAssertEqual(res.events, [.next(230, 4), .next(240, 5), .completed(250)])
    }

    func testSkipUntil_realThreadsForwardAContiguousTail() {
        let recorder = FilterEventRecorder<Int>()
        let source = PublishSubject<Int>()
        let start = PublishSubject<Void>()
        let subscription = source.skip(until: start).subscribe(recorder)
        DispatchQueue(label: "SkipUntilTests.other").async { start.onNext(()) }
        let sent = DispatchQueue(label: "SkipUntilTests.source").sync { () -> Int in
            var value = 0
            while recorder.elementCount < 100 {
                source.onNext(value)
                value += 1
            }
            source.onCompleted()
            return value
        }
        wait(for: [recorder.terminated], timeout: 5)
        subscription.dispose()
        let elements = recorder.elements
        XCTAssertEqual(elements, Array((sent - elements.count)..<sent))
        XCTAssertEqual(recorder.overlappingDeliveries, 0)
        XCTAssertFalse(start.hasObservers)
    }
}
