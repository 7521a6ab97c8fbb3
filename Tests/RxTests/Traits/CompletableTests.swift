import Rx
import RxTesting
import XCTest

final class CompletableTests: RxTestCase {
    func testCreate_completionAndErrorEndTheCompletable() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = TraitsBox<Completable.CompletableObserver?>(nil)
        let disposedAt = TraitsBox<Int?>(nil)
        scheduler.scheduleAt(201) { observer.value?(.completed) }
        scheduler.scheduleAt(202) { observer.value?(.error(testError)) }

        let res = scheduler.start {
            Completable.create { completable in
                observer.value = completable
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }

        XCTAssertEqual(res.events, [.completed(201)])
        XCTAssertEqual(disposedAt.value, 201)
        observer.value = nil
        XCTAssertEqual(
            traitsEvents {
                Completable.create { completable in
                    completable(.error(testError))
                    return Disposables.create()
                }
            }, [.error(200, testError)])
    }

    func testSubscribe_handlersAndOnDisposed() {
        var log: [String] = []
        _ = Completable.empty().subscribe(
            onCompleted: { log.append("completed") }, onError: { log.append("error \($0)") },
            onDisposed: { log.append("disposed") })
        _ = Completable.error(testError).subscribe(
            onCompleted: { log.append("completed") }, onError: { log.append("error \($0)") },
            onDisposed: { log.append("disposed") })
        _ = Completable.empty().subscribe { log.append(traitsDescribe($0)) }
        _ = Completable.error(testError).subscribe { log.append(traitsDescribe($0)) }
        XCTAssertEqual(
            log,
            ["completed", "disposed", "error TestError(1)", "disposed", "completed", "error(TestError(1))"])
    }

    func testSubscribe_disposingANeverCompletableRunsOnlyOnDisposed() {
        var log: [String] = []
        let subscription = Completable.never().subscribe(
            onCompleted: { log.append("completed") }, onDisposed: { log.append("disposed") })
        subscription.dispose()
        XCTAssertEqual(log, ["disposed"])
    }

    func testSubscribeWith_passesTheObject() {
        final class Owner {
            var log: [String] = []
        }
        let owner = Owner()
        _ = Completable.empty().subscribe(with: owner, onCompleted: { $0.log.append("completed") })
        _ = Completable.error(testError).subscribe(with: owner, onError: { $0.log.append("error \($1)") })
        XCTAssertEqual(owner.log, ["completed", "error TestError(1)"])
    }

    func testDo_completableLabelsRunInOrder() {
        let log = TraitsBox<[String]>([])
        _ = Completable.error(testError)
            .do(
                onError: { log.log("onError \($0)") }, afterError: { log.log("afterError \($0)") },
                onSubscribe: { log.log("onSubscribe") }, onSubscribed: { log.log("onSubscribed") },
                onDispose: { log.log("onDispose") }
            )
            .subscribe(onError: { log.log("error \($0)") })
        XCTAssertEqual(
            log.value,
            [
                "onSubscribe", "onError TestError(1)", "error TestError(1)", "afterError TestError(1)", "onSubscribed",
                "onDispose",
            ])
    }

    // MARK: concat

    func testConcat_subscribesEachAfterThePreviousCompleted() {
        let factories: [(Completable, Completable) -> Completable] = [
            { Completable.concat($0, $1) },
            { Completable.concat([$0, $1]) },
            { Completable.concat(AnyCollection([$0, $1])) },
            { Completable.concat(AnySequence([$0, $1])) },
            { $0.concat($1) },
        ]
        for factory in factories {
            let scheduler = TestScheduler(initialClock: 0)
            let ys1: TestableObservable<Never> = scheduler.createHotObservable([
                .completed(250), .error(260, testError),
            ])
            let ys2: TestableObservable<Never> = scheduler.createHotObservable([.completed(300)])
            let res = scheduler.start { factory(ys1.asCompletable(), ys2.asCompletable()) }
            XCTAssertEqual(res.events, [.completed(300)])
            XCTAssertEqual(ys1.subscriptions, [Subscription(200, 250)])
            XCTAssertEqual(ys2.subscriptions, [Subscription(250, 300)])
        }
    }

    func testConcat_errorStopsTheChain() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1: TestableObservable<Never> = scheduler.createHotObservable([.error(250, testError)])
        let ys2: TestableObservable<Never> = scheduler.createHotObservable([.completed(300)])
        let res = scheduler.start { Completable.concat(ys1.asCompletable(), ys2.asCompletable()) }
        XCTAssertEqual(res.events, [.error(250, testError)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys2.subscriptions, [])
    }

    func testConcat_emptyCompletesAndDisposalUnsubscribes() {
        XCTAssertEqual(traitsEvents { Completable.concat([Completable]()) }, [.completed(200)])
        let scheduler = TestScheduler(initialClock: 0)
        let ys: TestableObservable<Never> = scheduler.createHotObservable([.completed(1100)])
        let res = scheduler.start { Completable.concat(Completable.empty(), ys.asCompletable()) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 1000)])
    }

    func testConcat_iteratesTheSequenceLazilyOncePerSubscription() {
        let made = TraitsBox(0)
        let lazySources = (0..<3).lazy.map { _ -> Completable in
            made.value += 1
            return Completable.empty()
        }
        let completable = Completable.concat(lazySources)
        XCTAssertEqual(made.value, 0)
        _ = completable.subscribe()
        XCTAssertEqual(made.value, 3)
        _ = completable.subscribe()
        XCTAssertEqual(made.value, 6)
    }

    func testConcat_manySynchronousCompletablesDoNotGrowTheStack() {
        var completed = false
        _ = Completable.concat(Array(repeating: Completable.empty(), count: 100_000)).subscribe(onCompleted: {
            completed = true
        })
        XCTAssertTrue(completed)
    }

    // MARK: zip / merge

    func testZipAndMerge_completeWhenAllHaveCompleted() {
        let factories: [(Completable, Completable) -> Completable] = [
            { Completable.zip($0, $1) },
            { Completable.zip([$0, $1]) },
            { Completable.zip(AnyCollection([$0, $1])) },
            { Completable.merge($0, $1) },
            { Completable.merge([$0, $1]) },
            { Completable.merge(AnyCollection([$0, $1])) },
        ]
        for factory in factories {
            let scheduler = TestScheduler(initialClock: 0)
            let ys1: TestableObservable<Never> = scheduler.createHotObservable([
                .completed(250), .error(260, testError),
            ])
            let ys2: TestableObservable<Never> = scheduler.createHotObservable([.completed(300)])
            let res = scheduler.start { factory(ys1.asCompletable(), ys2.asCompletable()) }
            XCTAssertEqual(res.events, [.completed(300)])
            XCTAssertEqual(ys1.subscriptions, [Subscription(200, 250)])
            XCTAssertEqual(ys2.subscriptions, [Subscription(200, 300)])
        }
    }

    func testMerge_firstErrorDisposesTheOthers() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys1: TestableObservable<Never> = scheduler.createHotObservable([.error(250, testError)])
        let ys2: TestableObservable<Never> = scheduler.createHotObservable([.completed(300)])
        let res = scheduler.start { Completable.merge(ys1.asCompletable(), ys2.asCompletable()) }
        XCTAssertEqual(res.events, [.error(250, testError)])
        XCTAssertEqual(ys1.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys2.subscriptions, [Subscription(200, 250)])
    }

    func testMerge_synchronousErrorSkipsTheRest() {
        let scheduler = TestScheduler(initialClock: 0)
        let ys: TestableObservable<Never> = scheduler.createHotObservable([.completed(300)])
        let res = scheduler.start { Completable.merge(Completable.error(testError), ys.asCompletable()) }
        XCTAssertEqual(res.events, [.error(200, testError)])
        XCTAssertEqual(ys.subscriptions, [])
        XCTAssertEqual(traitsEvents { Completable.zip([Completable]()) }, [.completed(200)])
    }
}
