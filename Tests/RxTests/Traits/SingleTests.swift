import Rx
import RxTesting
import XCTest

final class SingleTests: RxTestCase {
    // MARK: create

    func testCreate_successIsNextThenCompletedAndDisposesTheWork() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = TraitsBox<Single<Int>.SingleObserver?>(nil)
        let disposedAt = TraitsBox<Int?>(nil)
        scheduler.scheduleAt(201) { observer.value?(.success(1)) }
        scheduler.scheduleAt(202) { observer.value?(.success(2)) }
        scheduler.scheduleAt(203) { observer.value?(.failure(testError)) }

        let res = scheduler.start {
            Single<Int>.create { single in
                observer.value = single
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }

        XCTAssertEqual(res.events, [.next(201, 1), .completed(201)])
        XCTAssertEqual(disposedAt.value, 201)
        observer.value = nil
    }

    func testCreate_failureEndsAndDisposesTheWork() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = TraitsBox<Single<Int>.SingleObserver?>(nil)
        let disposedAt = TraitsBox<Int?>(nil)
        scheduler.scheduleAt(201) { observer.value?(.failure(testError)) }
        scheduler.scheduleAt(202) { observer.value?(.success(1)) }

        let res = scheduler.start {
            Single<Int>.create { single in
                observer.value = single
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }

        XCTAssertEqual(res.events, [.error(201, testError)])
        XCTAssertEqual(disposedAt.value, 201)
        observer.value = nil
    }

    func testCreate_disposingBeforeTheOutcomeIgnoresIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = TraitsBox<Single<Int>.SingleObserver?>(nil)
        let disposedAt = TraitsBox<Int?>(nil)
        let res = scheduler.createObserver(Int.self)
        let subscription = TraitsBox<Disposable?>(nil)
        scheduler.scheduleAt(201) {
            subscription.value = Single<Int>.create { single in
                observer.value = single
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
            .asObservable().subscribe(res)
        }
        scheduler.scheduleAt(202) { subscription.value?.dispose() }
        scheduler.scheduleAt(203) { observer.value?(.success(1)) }
        scheduler.start()

        XCTAssertEqual(res.events, [])
        XCTAssertEqual(disposedAt.value, 202)
        observer.value = nil
        subscription.value = nil
    }

    // MARK: subscribe

    func testSubscribe_eventHandlerSeesSuccessOrFailure() {
        var events: [String] = []
        _ = Single.just(1).subscribe { events.append(traitsDescribe($0)) }
        _ = Single<Int>.error(testError).subscribe { events.append(traitsDescribe($0)) }
        XCTAssertEqual(events, ["success(1)", "failure(TestError(1))"])
    }

    func testSubscribe_onDisposedFollowsOnSuccess() {
        var log: [String] = []
        _ = Single.just(1).subscribe(
            onSuccess: { log.append("success \($0)") }, onFailure: { _ in log.append("failure") },
            onDisposed: { log.append("disposed") })
        _ = Single<Int>.error(testError).subscribe(
            onSuccess: { log.append("success \($0)") }, onFailure: { log.append("failure \($0)") },
            onDisposed: { log.append("disposed") })
        XCTAssertEqual(log, ["success 1", "disposed", "failure TestError(1)", "disposed"])
    }

    func testSubscribe_disposingBeforeTheOutcomeRunsOnlyOnDisposed() {
        var log: [String] = []
        let subscription = Single<Int>.never().subscribe(
            onSuccess: { _ in log.append("success") }, onFailure: { _ in log.append("failure") },
            onDisposed: { log.append("disposed") })
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log, ["disposed"])
    }

    func testSubscribe_errorWithoutHandlerGoesToTheDefaultErrorHandler() {
        let unhandled = traitsCapturingUnhandledErrors {
            _ = Single<Int>.error(testError).subscribe(onSuccess: { _ in })
        }
        XCTAssertEqual(unhandled, ["TestError(1)"])
    }

    func testSubscribe_completionWithoutElementIsNoElementsFailure() {
        // `retry(0)` completes at once, as RxSwift's does; a single reports it as a failure.
        var log: [String] = []
        _ = Single.just(1).retry(0).subscribe(
            onSuccess: { log.append("success \($0)") }, onFailure: { log.append("failure \($0)") })
        XCTAssertEqual(log, ["failure \(RxError.noElements)"])
    }

    func testSubscribeWith_handlersGetTheObjectWhileItLives() {
        final class Owner {
            var values: [Int] = []
        }
        let owner = Owner()
        _ = Single.just(3).subscribe(with: owner, onSuccess: { owner, value in owner.values.append(value) })
        XCTAssertEqual(owner.values, [3])

        var object: Owner? = Owner()
        weak let weakObject = object
        var called = false
        let subject = PublishSubject<Int>()
        let subscription = subject.asSingle().subscribe(
            with: object!, onSuccess: { _, _ in called = true }, onFailure: { _, _ in called = true })
        object = nil
        XCTAssertNil(weakObject)
        subject.onNext(1)
        subject.onCompleted()
        XCTAssertFalse(called)
        subscription.dispose()
    }

    // MARK: factories

    func testJust_deliversDuringSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1) }
        XCTAssertEqual(res.events, [.next(200, 1), .completed(200)])
    }

    func testJust_withSchedulerDeliversOnIt() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1, scheduler: scheduler) }
        // As RxSwift: the element in one scheduled action, `completed` in the next.
        XCTAssertEqual(res.events, [.next(201, 1), .completed(202)])
    }

    func testErrorAndNever() {
        XCTAssertEqual(traitsEvents { Single<Int>.error(testError) }, [.error(200, testError)])
        XCTAssertEqual(traitsEvents { Single<Int>.never() }, [])
    }

    func testDeferred_makesTheSingleAtEachSubscription() {
        let made = TraitsBox(0)
        let single = Single<Int>.deferred {
            made.value += 1
            return Single.just(made.value)
        }
        var values: [Int] = []
        _ = single.subscribe(onSuccess: { values.append($0) })
        _ = single.subscribe(onSuccess: { values.append($0) })
        XCTAssertEqual(values, [1, 2])

        var failures: [String] = []
        _ = Single<Int>.deferred { throw testError }.subscribe(onFailure: { failures.append("\($0)") })
        XCTAssertEqual(failures, ["TestError(1)"])
    }

    // MARK: operators

    func testMap_transformsTheElementAtItsTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(250)])
        let res = scheduler.start { xs.asSingle().map { $0 * 10 } }
        XCTAssertEqual(res.events, [.next(250, 20), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testMap_thrownErrorFailsTheSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).map { _ -> Int in throw testError } }
        XCTAssertEqual(res.events, [.error(200, testError)])
    }

    func testFilter_givesMaybe() {
        XCTAssertEqual(traitsEvents { Single.just(1).filter { _ in false } }, [.completed(200)])
        XCTAssertEqual(traitsEvents { Single.just(1).filter { $0 == 1 } }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Single.just(1).filter { _ in throw testError } }, [.error(200, testError)])
    }

    func testCompactMap_dropsNil() {
        XCTAssertEqual(
            traitsEvents { Single.just(1).compactMap { $0 == 1 ? "one" : nil } },
            [.next(200, "one"), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Single.just(2).compactMap { $0 == 1 ? "one" : nil } }, [.completed(200)])
        XCTAssertEqual(
            traitsEvents { Single.just(2).compactMap { _ -> String? in throw testError } },
            [.error(200, testError)])
    }

    func testFlatMap_subscribesTheInnerSingleAtTheElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let ys = scheduler.createColdObservable([.next(30, 5), .completed(30)])
        let res = scheduler.start { xs.asSingle().flatMap { value in ys.asSingle().map { $0 + value } } }
        XCTAssertEqual(res.events, [.next(250, 6), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(ys.subscriptions, [Subscription(220, 250)])
    }

    func testFlatMap_disposalMidwayDisposesTheInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys = scheduler.createColdObservable([.next(1000, 5), .completed(1000)])
        let res = scheduler.start { Single.just(1).flatMap { _ in ys.asSingle() } }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 1000)])
    }

    func testFlatMap_selectorErrorAndInnerErrorFail() {
        XCTAssertEqual(
            traitsEvents { Single.just(1).flatMap { _ -> Single<Int> in throw testError } },
            [.error(200, testError)])
        XCTAssertEqual(
            traitsEvents { Single.just(1).flatMap { _ in Single<Int>.error(testError2) } },
            [.error(200, testError2)])
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).flatMap { Single.just($0) } },
            [.error(200, testError)])
    }

    func testFlatMapMaybe_emptyInnerCompletes() {
        XCTAssertEqual(
            traitsEvents { Single.just(1).flatMapMaybe { Maybe.just($0 * 2) } },
            [.next(200, 2), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Single.just(1).flatMapMaybe { _ in Maybe<Int>.empty() } },
            [
                .completed(200)
            ])
    }

    func testFlatMapCompletable_completesWithTheInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys: TestableObservable<Never> = scheduler.createColdObservable([.completed(15)])
        let res = scheduler.start { Single.just(1).flatMapCompletable { _ in ys.asCompletable() } }
        XCTAssertEqual(res.events, [.completed(215)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 215)])
    }

    func testAsMaybeAndAsCompletable() {
        XCTAssertEqual(traitsEvents { Single.just(1).asMaybe() }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(traitsEvents { Single.just(1).asCompletable() }, [.completed(200)])
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).asCompletable() }, [.error(200, testError)])
    }

    func testDo_sideEffectsRunInRxSwiftOrder() {
        let log = TraitsBox<[String]>([])
        _ = Single.just(1)
            .do(
                onSuccess: { log.log("onSuccess \($0)") }, afterSuccess: { log.log("afterSuccess \($0)") },
                onError: { _ in log.log("onError") }, afterError: { _ in log.log("afterError") },
                onSubscribe: { log.log("onSubscribe") }, onSubscribed: { log.log("onSubscribed") },
                onDispose: { log.log("onDispose") }
            )
            .subscribe(onSuccess: { log.log("success \($0)") }, onDisposed: { log.log("disposed") })
        XCTAssertEqual(
            log.value,
            [
                "onSubscribe", "onSuccess 1", "success 1", "disposed", "afterSuccess 1", "onSubscribed", "onDispose",
            ])
    }

    func testDo_errorSideEffectsAndTimeline() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TraitsBox<[String]>([])
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.error(210, testError)])
        let res = scheduler.start {
            xs.asSingle().do(
                onError: { log.log("onError \($0)") }, afterError: { log.log("afterError \($0)") },
                onDispose: { log.log("onDispose") })
        }
        XCTAssertEqual(res.events, [.error(210, testError)])
        XCTAssertEqual(log.value, ["onError TestError(1)", "afterError TestError(1)", "onDispose"])
    }

    func testDo_throwingOnSuccessFailsTheSingle() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Single.just(1).do(onSuccess: { _ in throw testError }) }
        XCTAssertEqual(res.events, [.error(200, testError)])
    }

    func testDo_disposalRunsOnDispose() {
        let scheduler = TestScheduler(initialClock: 0)
        let disposedAt = TraitsBox<Int?>(nil)
        _ = scheduler.start { Single<Int>.never().do(onDispose: { disposedAt.value = scheduler.clock }) }
        XCTAssertEqual(disposedAt.value, 1000)
    }

    // MARK: the benchmark chain

    func testJustMapFlatMapChain_sumsLikeTheBenchmark() {
        var count = 0
        var sum = 0
        for _ in 0..<10_000 {
            let subscription = Single.just(1).map { $0 + 1 }.flatMap { Single.just($0) }.subscribe(onSuccess: {
                count += 1
                sum += $0
            })
            subscription.dispose()
        }
        XCTAssertEqual(count, 10_000)
        XCTAssertEqual(sum, 20_000)
    }
}

extension SingleTests {
    func testSubscribe_disposingFromInsideOnSuccessIsHarmless() {
        let subscription = TraitsBox<Disposable?>(nil)
        var log: [String] = []
        let subject = PublishSubject<Int>()
        subscription.value = subject.asSingle().subscribe(
            onSuccess: { value in
                log.append("success \(value)")
                subscription.value?.dispose()
            }, onDisposed: { log.append("disposed") })
        subject.onNext(1)
        subject.onCompleted()
        XCTAssertEqual(log, ["success 1", "disposed"])
        XCTAssertFalse(subject.hasObservers)
        subscription.value = nil
    }
}
