import Rx
import RxTesting
import XCTest

final class SubscribeHandlersTests: RxTestCase {
    func testSubscribe_callsHandlersInOrderThenOnDisposed() {
        var calls: [String] = []
        _ = Observable.of(1, 2).subscribe(
            onNext: { calls.append("next \($0)") },
            onError: { _ in calls.append("error") },
            onCompleted: { calls.append("completed") },
            onDisposed: { calls.append("disposed") })
        XCTAssertEqual(calls, ["next 1", "next 2", "completed", "disposed"])
    }

    func testSubscribe_errorCallsOnErrorThenOnDisposed() {
        var calls: [String] = []
        _ = Observable<Int>.error(testError).subscribe(
            onNext: { _ in calls.append("next") },
            onError: { calls.append("error \($0)") },
            onCompleted: { calls.append("completed") },
            onDisposed: { calls.append("disposed") })
        XCTAssertEqual(calls, ["error TestError(1)", "disposed"])
    }

    func testSubscribe_disposeCallsOnDisposedOnceAndStopsDelivery() {
        let subject = PublishSubject<Int>()
        var calls: [String] = []
        let subscription = subject.subscribe(
            onNext: { calls.append("next \($0)") },
            onCompleted: { calls.append("completed") },
            onDisposed: { calls.append("disposed") })
        subject.onNext(1)
        subscription.dispose()
        subscription.dispose()
        subject.onNext(2)
        subject.onCompleted()
        XCTAssertEqual(calls, ["next 1", "disposed"])
        XCTAssertFalse(subject.hasObservers)
    }

    func testSubscribe_terminalEventUnsubscribesUpstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(250), .next(260, 2)])
        var received: [Int] = []
        scheduler.scheduleAt(200) { _ = xs.subscribe(onNext: { received.append($0) }) }
        scheduler.start()
        XCTAssertEqual(received, [1])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    /// The handlers (and what they capture) are released when the sequence ends or the
    /// subscription is disposed, although the app still holds the returned disposable:
    /// the pattern that otherwise makes a cycle through a dispose bag.
    func testSubscribe_releasesTheHandlersAtTheEnd_whileTheDisposableIsStillHeld() {
        for ending in ["completed", "error", "disposed"] {
            let subject = PublishSubject<Int>()
            weak var weakCaptured: Owner?
            var subscription: Disposable?
            do {
                let captured = Owner()
                weakCaptured = captured
                subscription = subject.subscribe(
                    onNext: { _ in _ = captured }, onError: { _ in _ = captured },
                    onCompleted: { _ = captured })
            }
            subject.onNext(1)
            XCTAssertNotNil(weakCaptured, ending)
            switch ending {
            case "completed": subject.onCompleted()
            case "error": subject.onError(testError)
            default: subscription?.dispose()
            }
            XCTAssertNil(weakCaptured, "after \(ending)")
            withExtendedLifetime(subscription) {}
        }
    }

    /// A handler that ends its own subscription mid-delivery (re-entrantly, through the
    /// subject) keeps running to its end, and nothing arrives after.
    func testSubscribe_aHandlerThatCompletesItsSourceMidDelivery_finishesAndGetsNothingMore() {
        let subject = PublishSubject<Int>()
        var calls: [String] = []
        do {
            let captured = Owner()
            _ = subject.subscribe(
                onNext: { value in
                    calls.append("begin \(value)")
                    subject.onCompleted()
                    subject.onNext(value + 1)
                    calls.append("end \(value) \(captured.log.count)")
                },
                onCompleted: { calls.append("completed") })
        }
        subject.onNext(1)
        subject.onNext(3)
        XCTAssertEqual(calls, ["begin 1", "completed", "end 1 0"])
    }

    func testSubscribeEventClosure_receivesEveryEvent() {
        var events: [Event<Int>] = []
        _ = Observable.of(1, 2).subscribe { events.append($0) }
        XCTAssertEqual(events, [.next(1), .next(2), .completed])
    }

    func testSubscribeWith_passesTheObjectToEveryHandler() {
        let owner = Owner()
        _ = Observable.of(1, 2).subscribe(
            with: owner,
            onNext: { owner, value in owner.log.append("next \(value)") },
            onError: { owner, _ in owner.log.append("error") },
            onCompleted: { owner in owner.log.append("completed") },
            onDisposed: { owner in owner.log.append("disposed") })
        XCTAssertEqual(owner.log, ["next 1", "next 2", "completed", "disposed"])
    }

    func testSubscribeWith_passesErrors() {
        let owner = Owner()
        _ = Observable<Int>.error(testError).subscribe(
            with: owner, onError: { owner, error in owner.log.append("error \(error)") })
        XCTAssertEqual(owner.log, ["error TestError(1)"])
    }

    func testSubscribeWith_doesNotRetainTheObject() {
        let subject = PublishSubject<Int>()
        weak var weakOwner: Owner?
        var subscription: Disposable?
        do {
            let owner = Owner()
            weakOwner = owner
            subscription = subject.subscribe(with: owner, onNext: { owner, value in owner.log.append("\(value)") })
        }
        XCTAssertNil(weakOwner)
        subscription?.dispose()
    }

    func testSubscribeWith_ignoresEventsAfterTheObjectIsFreed() {
        let subject = PublishSubject<Int>()
        var owner: Owner? = Owner()
        var seen: [Int] = []
        var completions = 0
        var disposals = 0
        let subscription = subject.subscribe(
            with: owner!,
            onNext: { _, value in seen.append(value) },
            onCompleted: { _ in completions += 1 },
            onDisposed: { _ in disposals += 1 })
        subject.onNext(1)
        owner = nil
        subject.onNext(2)
        subject.onCompleted()
        XCTAssertEqual(seen, [1])
        XCTAssertEqual(completions, 0)
        XCTAssertEqual(disposals, 0)
        subscription.dispose()
    }

    func testSubscribe_withoutHandlersStillRunsTheSource() {
        let subscribed = SubscriptionCount()
        let source = Observable<Int>.create { observer in
            subscribed.value += 1
            observer.onCompleted()
            return Disposables.create()
        }
        _ = source.subscribe()
        XCTAssertEqual(subscribed.value, 1)
    }
}

private final class Owner {
    var log: [String] = []
}

private final class SubscriptionCount: @unchecked Sendable {
    // Only touched on the thread running the test.
    var value = 0
}
