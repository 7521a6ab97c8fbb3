import Rx
import RxTesting
import XCTest

final class DoTests: RxTestCase {
    func testDo_seesEveryElementAndPassesEventsThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
        let seen = ErrorsLocked<[Int]>([])
        let completions = ErrorsLocked(0)
        let res = scheduler.start {
            xs.do(onNext: { value in seen.mutate { $0.append(value) } }, onCompleted: { completions.increment() })
        }
        XCTAssertEqual(seen.value, [2, 3, 4, 5])
        XCTAssertEqual(completions.value, 1)
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDo_neverSourceRunsNoEventHooks() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>]())
        let calls = ErrorsLocked(0)
        let res = scheduler.start {
            xs.do(
                onNext: { _ in calls.increment() }, onError: { _ in calls.increment() },
                onCompleted: { calls.increment() })
        }
        XCTAssertEqual(calls.value, 0)
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1000)])
    }

    func testDo_onErrorSeesTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(250, testError)])
        let errors = ErrorsLocked<[TestError]>([])
        let res = scheduler.start {
            xs.do(onError: { error in errors.mutate { $0.append(error as? TestError ?? TestError(-1)) } })
        }
        XCTAssertEqual(errors.value, [testError])
        XCTAssertEqual(res.events, [.next(210, 2), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDo_onNextThrowingEndsTheSequenceBeforeTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(220, 3), .next(230, 4), .next(240, 5), .completed(250),
        ])
        let res = scheduler.start {
            xs.do(onNext: { value in if value == 5 { throw testError } })
        }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .next(230, 4), .error(240, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testDo_afterNextThrowingEndsTheSequenceAfterTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .next(220, 3), .completed(250)])
        let res = scheduler.start {
            xs.do(afterNext: { value in if value == 3 { throw testError } })
        }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3), .error(220, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testDo_onErrorThrowingReplacesTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(150, 1), .next(210, 2), .error(250, testError)])
        let res = scheduler.start { xs.do(onError: { _ in throw testError2 }) }
        XCTAssertEqual(res.events, [.next(210, 2), .error(250, testError2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDo_onCompletedThrowingTurnsCompletionIntoError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(250)])
        let res = scheduler.start { xs.do(onCompleted: { throw testError }) }
        XCTAssertEqual(res.events, [.next(210, 2), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDo_afterTerminalHooksRunAfterDeliveryAndTheirErrorsAreDropped() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(250)])
        let ys = scheduler.createHotObservable([.next(210, 2), .error(250, testError)])
        let log = ErrorsLocked<[String]>([])
        let observer = scheduler.createObserver(Int.self)
        let completedObserver = AnyObserver<Int> { event in
            if event.isStopEvent { log.append("downstream \(event)") }
            observer.on(event)
        }
        scheduler.scheduleAt(200) {
            _ = xs.do(afterCompleted: {
                log.append("afterCompleted")
                throw testError2
            })
            .subscribe(completedObserver)
            _ = ys.do(afterError: { _ in
                log.append("afterError")
                throw testError2
            })
            .subscribe(completedObserver)
        }
        scheduler.start()
        XCTAssertEqual(
            log.value, ["downstream completed", "afterCompleted", "downstream error(TestError(1))", "afterError"])
        XCTAssertEqual(observer.events, [.next(210, 2), .next(210, 2), .completed(250), .error(250, testError)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testDo_hooksRunAroundDownstreamInOrder() {
        let log = ErrorsLocked<[String]>([])
        _ = Observable.of(1, 2)
            .do(
                onNext: { log.append("onNext \($0)") }, afterNext: { log.append("afterNext \($0)") },
                onCompleted: { log.append("onCompleted") }, afterCompleted: { log.append("afterCompleted") }
            )
            .subscribe(onNext: { log.append("downstream \($0)") }, onCompleted: { log.append("downstream completed") })
        XCTAssertEqual(
            log.value,
            [
                "onNext 1", "downstream 1", "afterNext 1", "onNext 2", "downstream 2", "afterNext 2", "onCompleted",
                "downstream completed", "afterCompleted",
            ])
    }

    func testDo_lifecycleOrderWhenSourceEndsLater() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = ErrorsLocked<[String]>([])
        _ = scheduler.start {
            Observable<Int>.create { observer in
                log.append("sourceSubscribe")
                scheduler.scheduleAt(300) {
                    observer.on(.next(0))
                    observer.on(.completed)
                }
                return Disposables.create { log.append("sourceDispose") }
            }
            .do(
                onNext: { _ in log.append("onNext") }, onCompleted: { log.append("onCompleted") },
                onSubscribe: { log.append("onSubscribe") }, onSubscribed: { log.append("onSubscribed") },
                onDispose: { log.append("onDispose") })
        }
        XCTAssertEqual(
            log.value,
            ["onSubscribe", "sourceSubscribe", "onSubscribed", "onNext", "onCompleted", "sourceDispose", "onDispose"])
    }

    func testDo_lifecycleOrderWhenSourceEndsDuringSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = ErrorsLocked<[String]>([])
        _ = scheduler.start {
            Observable<Int>.create { observer in
                log.append("sourceSubscribe")
                observer.on(.next(0))
                observer.on(.completed)
                return Disposables.create { log.append("sourceDispose") }
            }
            .do(
                onNext: { _ in log.append("onNext") }, onCompleted: { log.append("onCompleted") },
                onSubscribe: { log.append("onSubscribe") }, onSubscribed: { log.append("onSubscribed") },
                onDispose: { log.append("onDispose") })
        }
        XCTAssertEqual(
            log.value,
            ["onSubscribe", "sourceSubscribe", "onNext", "onCompleted", "sourceDispose", "onSubscribed", "onDispose"])
    }

    func testDo_lifecycleOrderOnSynchronousError() {
        let log = ErrorsLocked<[String]>([])
        _ = Observable<Int>.create { observer in
            log.append("sourceSubscribe")
            observer.on(.next(0))
            observer.on(.error(testError))
            return Disposables.create { log.append("sourceDispose") }
        }
        .do(
            onNext: { _ in log.append("onNext") }, onError: { _ in log.append("onError") },
            onSubscribe: { log.append("onSubscribe") }, onSubscribed: { log.append("onSubscribed") },
            onDispose: { log.append("onDispose") }
        )
        .subscribe { _ in }
        XCTAssertEqual(
            log.value,
            ["onSubscribe", "sourceSubscribe", "onNext", "onError", "sourceDispose", "onSubscribed", "onDispose"])
    }

    func testDo_lifecycleOrderOnDispose() {
        let log = ErrorsLocked<[String]>([])
        Observable<Int>.create { observer in
            log.append("sourceSubscribe")
            observer.on(.next(0))
            return Disposables.create { log.append("sourceDispose") }
        }
        .do(
            onNext: { _ in log.append("onNext") }, onSubscribe: { log.append("onSubscribe") },
            onSubscribed: { log.append("onSubscribed") }, onDispose: { log.append("onDispose") }
        )
        .subscribe { _ in }
        .dispose()
        XCTAssertEqual(
            log.value, ["onSubscribe", "sourceSubscribe", "onNext", "onSubscribed", "sourceDispose", "onDispose"])
    }

    func testDo_onDisposeRunsOnceWhenDisposedAfterCompletion() {
        let disposals = ErrorsLocked(0)
        let subject = PublishSubject<Int>()
        let subscription = subject.do(onDispose: { disposals.increment() }).subscribe()
        subject.onCompleted()
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(disposals.value, 1)
    }

    func testDo_subscriptionHooksRunForEachSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let log = ErrorsLocked<[String]>([])
        let observed = xs.do(onSubscribe: { log.append("subscribe") }, onDispose: { log.append("dispose") })
        let res = scheduler.start {
            Observable.catch(sequence: [observed, observed])
        }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(log.value, ["subscribe", "dispose"])
        let twice = scheduler.createObserver(Int.self)
        _ = observed.subscribe(twice)
        _ = observed.subscribe(twice)
        scheduler.start()
        XCTAssertEqual(log.value, ["subscribe", "dispose", "subscribe", "subscribe", "dispose", "dispose"])
    }
}
