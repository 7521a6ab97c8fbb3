import Rx
import RxTesting
import XCTest

final class MaybeTests: RxTestCase {
    func testCreate_eachOutcomeEndsTheMaybe() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = TraitsBox<Maybe<Int>.MaybeObserver?>(nil)
        let disposedAt = TraitsBox<Int?>(nil)
        scheduler.scheduleAt(201) { observer.value?(.completed) }
        scheduler.scheduleAt(202) { observer.value?(.success(1)) }

        let res = scheduler.start {
            Maybe<Int>.create { maybe in
                observer.value = maybe
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }

        XCTAssertEqual(res.events, [.completed(201)])
        XCTAssertEqual(disposedAt.value, 201)
        observer.value = nil

        let outcomes: [MaybeEvent<Int>] = [.success(5), .error(testError)]
        let expected: [[Recorded<Event<Int>>]] = [[.next(200, 5), .completed(200)], [.error(200, testError)]]
        for (outcome, events) in zip(outcomes, expected) {
            let box = TraitsBox(outcome)
            XCTAssertEqual(
                traitsEvents {
                    Maybe<Int>.create { maybe in
                        maybe(box.value)
                        return Disposables.create()
                    }
                }, events)
        }
    }

    func testSubscribe_exactlyOneOutcomeHandlerRuns() {
        var log: [String] = []
        for maybe in [Maybe.just(1), Maybe<Int>.error(testError), Maybe<Int>.empty()] {
            _ = maybe.subscribe(
                onSuccess: { log.append("success \($0)") }, onError: { log.append("error \($0)") },
                onCompleted: { log.append("completed") }, onDisposed: { log.append("disposed") })
        }
        XCTAssertEqual(
            log, ["success 1", "disposed", "error TestError(1)", "disposed", "completed", "disposed"])
    }

    func testSubscribe_onFailureSpellingAndEventHandler() {
        var log: [String] = []
        _ = Maybe<Int>.error(testError).subscribe(onFailure: { log.append("failure \($0)") })
        _ = Maybe.just(2).subscribe { log.append(traitsDescribe($0)) }
        _ = Maybe<Int>.empty().subscribe { log.append(traitsDescribe($0)) }
        XCTAssertEqual(log, ["failure TestError(1)", "success(2)", "completed"])
    }

    func testSubscribe_errorWithoutHandlerGoesToTheDefaultErrorHandler() {
        let unhandled = traitsCapturingUnhandledErrors {
            _ = Maybe<Int>.error(testError).subscribe(onSuccess: { _ in })
        }
        XCTAssertEqual(unhandled, ["TestError(1)"])
    }

    func testSubscribeWith_passesTheObject() {
        final class Owner {
            var log: [String] = []
        }
        let owner = Owner()
        _ = Maybe<Int>.empty().subscribe(with: owner, onCompleted: { $0.log.append("completed") })
        _ = Maybe.just(1).subscribe(with: owner, onSuccess: { $0.log.append("success \($1)") })
        XCTAssertEqual(owner.log, ["completed", "success 1"])
    }

    func testFactories() {
        XCTAssertEqual(traitsEvents { Maybe.just(1) }, [.next(200, 1), .completed(200)])
        let scheduler = TestScheduler(initialClock: 0)
        XCTAssertEqual(
            scheduler.start { Maybe.just(1, scheduler: scheduler) }.events, [.next(201, 1), .completed(202)])
        XCTAssertEqual(traitsEvents { Maybe<Int>.empty() }, [.completed(200)])
        XCTAssertEqual(traitsEvents { Maybe<Int>.error(testError) }, [.error(200, testError)])
        XCTAssertEqual(traitsEvents { Maybe<Int>.never() }, [])
    }

    func testOperators_mapFilterCompactMapFlatMap() {
        XCTAssertEqual(traitsEvents { Maybe.just(2).map { $0 * 3 } }, [.next(200, 6), .completed(200)])
        XCTAssertEqual(traitsEvents { Maybe<Int>.empty().map { $0 * 3 } }, [.completed(200)])
        XCTAssertEqual(traitsEvents { Maybe.just(2).filter { $0 > 5 } }, [.completed(200)])
        XCTAssertEqual(traitsEvents { Maybe.just(2).compactMap { $0 > 5 ? $0 : nil } }, [.completed(200)])
        XCTAssertEqual(traitsEvents { Maybe.just(2).flatMap { Maybe.just($0 + 1) } }, [.next(200, 3), .completed(200)])
        XCTAssertEqual(traitsEvents { Maybe<Int>.empty().flatMap { Maybe.just($0 + 1) } }, [.completed(200)])
        XCTAssertEqual(
            traitsEvents { Maybe.just(2).map { _ -> Int in throw testError } }, [.error(200, testError)])
    }

    func testFlatMap_waitsForTheInnerMaybe() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(230)])
        let ys = scheduler.createColdObservable([Recorded<Event<Int>>.completed(40)])
        let res = scheduler.start { xs.asMaybe().flatMap { _ in ys.asMaybe() } }
        XCTAssertEqual(res.events, [.completed(270)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(230, 270)])
    }

    func testDo_maybeLabelsRunInOrder() {
        let log = TraitsBox<[String]>([])
        _ = Maybe<Int>.empty()
            .do(
                onNext: { log.log("onNext \($0)") }, onCompleted: { log.log("onCompleted") },
                afterCompleted: { log.log("afterCompleted") }, onSubscribe: { log.log("onSubscribe") },
                onSubscribed: { log.log("onSubscribed") }, onDispose: { log.log("onDispose") }
            )
            .subscribe(onCompleted: { log.log("completed") })
        XCTAssertEqual(
            log.value, ["onSubscribe", "onCompleted", "completed", "afterCompleted", "onSubscribed", "onDispose"])
    }

    func testDo_throwingOnCompletedFailsTheMaybe() {
        XCTAssertEqual(
            traitsEvents { Maybe<Int>.empty().do(onCompleted: { throw testError }) }, [.error(200, testError)])
    }

    func testCatchAndReturn_replacesTheError() {
        XCTAssertEqual(
            traitsEvents { Maybe<Int>.error(testError).catchAndReturn(7) }, [.next(200, 7), .completed(200)])
        XCTAssertEqual(traitsEvents { Maybe<Int>.empty().catchAndReturn(7) }, [.completed(200)])
    }

    func testAsCompletable_dropsTheElement() {
        XCTAssertEqual(traitsEvents { Maybe.just(1).asCompletable() }, [.completed(200)])
    }
}
