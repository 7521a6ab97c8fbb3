import Rx
import RxTesting
import XCTest

final class TakeUntilTests: RxTestCase {
    private func makeSource(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
    }

    // MARK: take(until: other)

    func testTakeUntilOther_otherElementCompletesAndUnsubscribesBoth() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r = scheduler.createHotObservable([.next(150, 1), .next(225, 99), .completed(230)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(225)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 225)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testTakeUntilOther_otherErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .error(225, testError)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .error(225, testError)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 225)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testTakeUntilOther_otherCompletingEmptyOnlyEndsItsSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .completed(225)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(
            res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testTakeUntilOther_silentOtherStaysSubscribedUntilSourceCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(res.events.last, .completed(250))
        XCTAssertEqual(l.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 250)])
    }

    func testTakeUntilOther_neverSourceCompletesWhenOtherFires() {
        let scheduler = TestScheduler(initialClock: 0)
        let l: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let r = scheduler.createHotObservable([.next(150, 1), .next(225, 2), .completed(250)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(res.events, [.completed(225)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 225)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testTakeUntilOther_neverAndEmptyOtherRunsUntilDisposed() {
        let scheduler = TestScheduler(initialClock: 0)
        let l: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1)])
        let r: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .completed(225)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 1000)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testTakeUntilOther_firingBeforeFirstElementCompletesEmpty() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = scheduler.createHotObservable([.next(150, 1), .next(230, 2), .completed(240)])
        let r = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .completed(220)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(res.events, [.completed(210)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 210)])
    }

    func testTakeUntilOther_sourceErrorIsForwardedAndUnsubscribesOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let l: TestableObservable<Int> = scheduler.createHotObservable([.next(150, 1), .error(225, testError)])
        let r = scheduler.createHotObservable([.next(150, 1), .next(240, 2)])
        let res = scheduler.start { l.take(until: r) }
        XCTAssertEqual(res.events, [.error(225, testError)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 225)])
    }

    func testTakeUntilOther_disposeUnsubscribesBoth() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r = scheduler.createHotObservable([.next(300, 1)])
        let res = scheduler.start(disposed: 215) { l.take(until: r) }
        XCTAssertEqual(res.events, [.next(210, 2)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 215)])
        XCTAssertEqual(r.subscriptions, [Subscription(200, 215)])
    }

    func testTakeUntilOther_synchronousOtherEndsBeforeTheSourceEmits() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        // `other` is subscribed first: it fires during subscription, and the source is
        // subscribed and released at once.
        let res = scheduler.start { l.take(until: Observable.just(0)) }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 200)])
    }

    func testTakeUntilOther_reentrantOtherFromDownstreamCompletesAfterCurrentElement() {
        let source = PublishSubject<Int>()
        let stop = PublishSubject<Void>()
        var events: [Event<Int>] = []
        _ = source.take(until: stop).subscribe { event in
            events.append(event)
            if case .next(1) = event { stop.onNext(()) }
        }
        source.onNext(1)
        source.onNext(2)
        XCTAssertEqual(events, [.next(1), .completed])
        XCTAssertFalse(source.hasObservers)
        XCTAssertFalse(stop.hasObservers)
    }

    func testTakeUntilOther_otherIsSubscribedBeforeSource() {
        let order = FilterOrderLog()
        let source = Observable<Int>.create { _ in
            order.append("source")
            return Disposables.create()
        }
        let other = Observable<Int>.create { _ in
            order.append("other")
            return Disposables.create()
        }
        source.take(until: other).subscribe().dispose()
        XCTAssertEqual(order.entries, ["other", "source"])
    }

    @available(*, deprecated)
    func testTakeUntilDeprecated_isTakeUntilOther() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let r = scheduler.createHotObservable([.next(225, 99)])
        let res = scheduler.start { l.takeUntil(r) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(225)])
    }

    func testTakeUntilOther_realThreadsDeliverSerially() {
        let recorder = FilterEventRecorder<Int>()
        let source = PublishSubject<Int>()
        let stop = PublishSubject<Void>()
        let subscription = source.take(until: stop).subscribe(recorder)
        let emitter = DispatchQueue(label: "TakeUntilTests.source")
        emitter.async {
            var value = 0
            while !recorder.isTerminated {
                source.onNext(value)
                value += 1
            }
        }
        wait(for: [recorder.firstElement], timeout: 5)
        let other = DispatchQueue(label: "TakeUntilTests.other")
        other.async { stop.onNext(()) }
        wait(for: [recorder.terminated], timeout: 5)
        emitter.sync {}
        // The terminal event disposes the sink on `other`'s thread, after the recorder
        // heard it: wait for that disposal to finish (a `dispose()` racing it returns at
        // once, as in RxSwift).
        other.sync {}
        subscription.dispose()
        let elements = recorder.elements
        XCTAssertEqual(elements, Array(0..<elements.count))
        XCTAssertEqual(recorder.events.last, .completed)
        XCTAssertEqual(recorder.overlappingDeliveries, 0)
        XCTAssertFalse(stop.hasObservers)
    }

    // MARK: take(until: predicate, behavior:)

    func testTakeUntilPredicate_exclusiveCompletesWithoutTheMatchingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.take(until: { $0 == 4 }, behavior: .exclusive) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(230)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 230)])
    }

    func testTakeUntilPredicate_defaultBehaviorIsExclusive() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.take(until: { $0 == 4 }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(230)])
    }

    func testTakeUntilPredicate_inclusiveEmitsTheMatchingElementThenCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.take(until: { $0 == 4 }, behavior: .inclusive) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .completed(230)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 230)])
    }

    func testTakeUntilPredicate_neverMatchingCompletesWithTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.take(until: { _ in false }, behavior: .inclusive) }
        XCTAssertEqual(
            res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 250)])
    }

    func testTakeUntilPredicate_matchingAtOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let exclusive = scheduler.start { l.take(until: { _ in true }, behavior: .exclusive) }
        XCTAssertEqual(exclusive.events, [.completed(210)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 210)])
    }

    func testTakeUntilPredicate_sourceErrorIsForwarded() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .error(225, testError)])
        let res = scheduler.start { l.take(until: { $0 == 4 }, behavior: .inclusive) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .error(225, testError)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 225)])
    }

    func testTakeUntilPredicate_thrownErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start {
            l.take(until: { value -> Bool in
                if value == 3 { throw testError }
                return false
            })
        }
        XCTAssertEqual(res.events, [.next(210, 2), .error(220, testError)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 220)])
    }

    func testTakeUntilPredicate_reentrantElementAfterTheLastIsDropped() {
        let subject = PublishSubject<Int>()
        var events: [Event<Int>] = []
        _ = subject.take(until: { $0 >= 2 }, behavior: .inclusive).subscribe { event in
            events.append(event)
            if case .next(2) = event { subject.onNext(3) }
        }
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(events, [.next(1), .next(2), .completed])
    }

    @available(*, deprecated)
    func testTakeUntilDeprecatedPredicate_isTakeUntilBehavior() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.takeUntil(.inclusive, predicate: { $0 == 3 }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(220)])
    }

    // MARK: take(while:behavior:)

    func testTakeWhile_completesAtTheFirstFailingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.take(while: { $0 < 4 }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(230)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 230)])
    }

    func testTakeWhile_inclusiveEmitsTheFirstFailingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.take(while: { $0 < 4 }, behavior: .inclusive) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .completed(230)])
    }

    func testTakeWhile_alwaysTrueCompletesWithTheSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.take(while: { _ in true }) }
        XCTAssertEqual(res.events.count, 5)
        XCTAssertEqual(res.events.last, .completed(250))
    }

    func testTakeWhile_predicateIsNotCalledAfterTheEnd() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let calls = FilterCallCounter()
        let res = scheduler.start {
            l.take(while: { value in
                calls.increment()
                return value < 3
            })
        }
        XCTAssertEqual(res.events, [.next(210, 2), .completed(220)])
        XCTAssertEqual(calls.value, 2)
    }

    func testTakeWhile_thrownErrorEndsSequence() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start {
            l.take(while: { value -> Bool in
                if value == 4 { throw testError }
                return true
            })
        }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .error(230, testError)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 230)])
    }

    func testTakeWhile_disposeMidwayUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start(disposed: 225) { l.take(while: { _ in true }) }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3)])
        XCTAssertEqual(l.subscriptions, [Subscription(200, 225)])
    }

    @available(*, deprecated)
    func testTakeWhileDeprecated_isTakeWhile() {
        let scheduler = TestScheduler(initialClock: 0)
        let l = makeSource(scheduler)
        let res = scheduler.start { l.takeWhile { $0 < 4 } }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .completed(230)])
    }
}
