import Rx
import RxTesting
import XCTest

final class ObservableCreateGuardTests: RxTestCase {
    func testCreate_eventsAfterCompletionAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onCompleted()
                observer.onNext(2)
                observer.onError(testError)
                observer.onCompleted()
                return Disposables.create()
            }
        }
        XCTAssertEqual(res.events, [.next(200, 1), .completed(200)])
    }

    func testCreate_eventsAfterErrorAreIgnored() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start {
            Observable<Int>.create { observer in
                observer.onError(testError)
                observer.onNext(2)
                observer.onCompleted()
                observer.onError(testError2)
                return Disposables.create()
            }
        }
        XCTAssertEqual(res.events, [.error(200, testError)])
    }

    func testCreate_terminalEventDisposesReturnedDisposable() {
        let disposeCount = Counter()
        let subject = PublishSubject<Int>()
        let source = Observable<Int>.create { observer in
            let subscription = subject.subscribe(observer)
            return Disposables.create {
                disposeCount.value += 1
                subscription.dispose()
            }
        }
        var events: [Event<Int>] = []
        let subscription = source.subscribe { events.append($0) }
        subject.onNext(1)
        XCTAssertEqual(disposeCount.value, 0)
        subject.onCompleted()
        XCTAssertEqual(disposeCount.value, 1)
        subscription.dispose()
        XCTAssertEqual(disposeCount.value, 1)
        XCTAssertEqual(events, [.next(1), .completed])
    }

    func testCreate_synchronousTerminalEventDisposesReturnedDisposable() {
        let disposeCount = Counter()
        let source = Observable<Int>.create { observer in
            observer.onError(testError)
            return Disposables.create { disposeCount.value += 1 }
        }
        var events: [Event<Int>] = []
        _ = source.subscribe { events.append($0) }
        XCTAssertEqual(disposeCount.value, 1)
        XCTAssertEqual(events, [.error(testError)])
    }

    func testCreate_disposingSubscriptionDisposesReturnedDisposableOnce() {
        let scheduler = TestScheduler(initialClock: 0)
        let disposeCount = Counter()
        let xs = scheduler.createHotObservable([.next(210, 1), .next(300, 2), .completed(400)])
        let res = scheduler.start(disposed: 250) {
            Observable<Int>.create { observer in
                let subscription = xs.subscribe(observer)
                return Disposables.create {
                    disposeCount.value += 1
                    subscription.dispose()
                }
            }
        }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(disposeCount.value, 1)
    }

    func testCreate_eventsAfterDisposeAreIgnored() {
        let holder = ObserverHolder()
        let source = Observable<Int>.create { observer in
            holder.observer = observer
            return Disposables.create()
        }
        var events: [Event<Int>] = []
        let subscription = source.subscribe { events.append($0) }
        holder.observer?.onNext(1)
        subscription.dispose()
        holder.observer?.onNext(2)
        holder.observer?.onCompleted()
        XCTAssertEqual(events, [.next(1)])
        holder.observer = nil
    }

    func testCreate_eachSubscriptionRunsTheClosure() {
        let subscriptions = Counter()
        let source = Observable<Int>.create { observer in
            subscriptions.value += 1
            observer.onNext(subscriptions.value)
            observer.onCompleted()
            return Disposables.create()
        }
        XCTAssertEqual(try source.toBlocking().toArray(), [1])
        XCTAssertEqual(try source.toBlocking().toArray(), [2])
    }
}

/// A mutable integer for closures run on the test's thread.
private final class Counter: @unchecked Sendable {
    // Only touched on the thread running the test.
    var value = 0
}

private final class ObserverHolder: @unchecked Sendable {
    // Only touched on the thread running the test.
    var observer: AnyObserver<Int>?
}
