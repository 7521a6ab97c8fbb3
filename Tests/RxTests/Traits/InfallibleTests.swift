import Rx
import RxTesting
import XCTest

final class InfallibleTests: RxTestCase {
    func testCreate_forwardsElementsAndCompletion() {
        let scheduler = TestScheduler(initialClock: 0)
        let observer = TraitsBox<Infallible<Int>.InfallibleObserver?>(nil)
        let disposedAt = TraitsBox<Int?>(nil)
        scheduler.scheduleAt(210) { observer.value?(.next(1)) }
        scheduler.scheduleAt(220) { observer.value?(.next(2)) }
        scheduler.scheduleAt(230) { observer.value?(.completed) }
        scheduler.scheduleAt(240) { observer.value?(.next(3)) }

        let res = scheduler.start {
            Infallible<Int>.create { infallible in
                observer.value = infallible
                return Disposables.create { disposedAt.value = scheduler.clock }
            }
        }

        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(disposedAt.value, 230)
        observer.value = nil
    }

    /// RxSwift's `InfallibleTest.testAsInfallible_OnErrorRecover`: after the source's
    /// error only the recovery's events go through.
    func testAsInfallible_OnErrorRecover() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(300, 9), .next(340, 13), .next(360, 111), .error(390, testError), .next(480, 320),
        ])
        let ys = scheduler.createHotObservable([.next(500, 25), .next(600, 33), .completed(620)])

        let res = scheduler.start {
            xs.asInfallible(onErrorRecover: { _ in ys.asInfallible(onErrorJustReturn: -1) })
        }

        XCTAssertEqual(
            res.events,
            [.next(300, 9), .next(340, 13), .next(360, 111), .next(500, 25), .next(600, 33), .completed(620)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 390)])
        XCTAssertEqual(ys.subscriptions, [Subscription(390, 620)])
    }

    func testFactories() {
        XCTAssertEqual(traitsEvents { Infallible.just(1) }, [.next(200, 1), .completed(200)])
        let scheduler = TestScheduler(initialClock: 0)
        XCTAssertEqual(
            scheduler.start { Infallible.just(1, scheduler: scheduler) }.events, [.next(201, 1), .completed(202)])
        XCTAssertEqual(traitsEvents { Infallible<Int>.empty() }, [.completed(200)])
        XCTAssertEqual(traitsEvents { Infallible<Int>.never() }, [])
        XCTAssertEqual(
            traitsEvents { Infallible.of(1, 2) }, [.next(200, 1), .next(200, 2), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Infallible.from([1, 2]) }, [.next(200, 1), .next(200, 2), .completed(200)])
        XCTAssertEqual(
            traitsEvents { Infallible.from(1...2) }, [.next(200, 1), .next(200, 2), .completed(200)])
        XCTAssertEqual(traitsEvents { Infallible.deferred { Infallible.just(4) } }, [.next(200, 4), .completed(200)])
    }

    func testMapFilterCompactMap() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start {
            xs.asInfallible(onErrorJustReturn: 0).map { $0 * 10 }.filter { $0 != 20 }.compactMap { $0 > 10 ? $0 : nil }
        }
        XCTAssertEqual(res.events, [.next(230, 30), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testSubscribe_handlersAndEventHandler() {
        var log: [String] = []
        _ = Infallible.of(1, 2).subscribe(
            onNext: { log.append("next \($0)") }, onCompleted: { log.append("completed") },
            onDisposed: { log.append("disposed") })
        _ = Infallible.just(3).subscribe { event in
            switch event {
            case .next(let value): log.append("event next \(value)")
            case .completed: log.append("event completed")
            }
        }
        XCTAssertEqual(log, ["next 1", "next 2", "completed", "disposed", "event next 3", "event completed"])
    }

    func testSubscribeWith_passesTheObject() {
        final class Owner {
            var values: [Int] = []
        }
        let owner = Owner()
        _ = Infallible.of(1, 2).subscribe(with: owner, onNext: { $0.values.append($1) })
        XCTAssertEqual(owner.values, [1, 2])
    }

    // MARK: conversions

    func testAsInfallibleOnErrorJustReturn_replacesTheErrorWithAnElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { xs.asInfallible(onErrorJustReturn: -1) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, -1), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsInfallibleOnErrorFallbackTo_continuesWithTheFallback() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let ys = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        let res = scheduler.start {
            xs.asInfallible(onErrorFallbackTo: ys.asInfallible(onErrorJustReturn: 0))
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .completed(240)])
        XCTAssertEqual(ys.subscriptions, [Subscription(220, 240)])
    }

    func testAsInfallibleOnErrorRecover_seesTheError() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>.error(220, testError)])
        let res = scheduler.start {
            xs.asInfallible(onErrorRecover: { error in Infallible.just((error as? TestError)?.id ?? 0) })
        }
        XCTAssertEqual(res.events, [.next(220, 1), .completed(220)])
    }

    func testAsInfallible_singleAndObservableToo() {
        XCTAssertEqual(
            traitsEvents { Single<Int>.error(testError).asInfallible(onErrorJustReturn: 9) },
            [.next(200, 9), .completed(200)])
        XCTAssertEqual(traitsEvents { Infallible.just(1).asInfallible() }, [.next(200, 1), .completed(200)])
    }

    // MARK: flatMap

    func testFlatMap_mergesInnerSequencesAndCompletesWhenAllHave() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let inner = [
            1: scheduler.createColdObservable([.next(5, 11), .next(30, 12), .completed(40)]),
            2: scheduler.createColdObservable([.next(5, 21), .completed(10)]),
        ]
        let res = scheduler.start {
            xs.asInfallible(onErrorJustReturn: 0).flatMap { inner[$0]!.asInfallible(onErrorJustReturn: 0) }
        }
        XCTAssertEqual(res.events, [.next(215, 11), .next(225, 21), .next(240, 12), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(inner[1]?.subscriptions, [Subscription(210, 250)])
        XCTAssertEqual(inner[2]?.subscriptions, [Subscription(220, 230)])
    }

    func testFlatMap_disposalMidwayDisposesEveryInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let ys = scheduler.createColdObservable([.next(1000, 5)])
        let res = scheduler.start(disposed: 500) {
            xs.asInfallible(onErrorJustReturn: 0).flatMap { _ in ys.asInfallible(onErrorJustReturn: 0) }
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 500)])
    }

    func testFlatMap_synchronousInnersDeliverInOrder() {
        var received: [Int] = []
        _ = Infallible.of(1, 2, 3).flatMap { Infallible.of($0, $0 * 10) }.subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received, [1, 10, 2, 20, 3, 30])
    }

    func testFlatMapLatest_switchesToTheLatestInner() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .completed(250)])
        let inner = [
            1: scheduler.createColdObservable([.next(10, 11), .next(50, 12), .completed(60)]),
            2: scheduler.createColdObservable([.next(10, 21), .completed(20)]),
        ]
        let res = scheduler.start {
            xs.asInfallible(onErrorJustReturn: 0).flatMapLatest { inner[$0]!.asInfallible(onErrorJustReturn: 0) }
        }
        XCTAssertEqual(res.events, [.next(220, 11), .next(250, 21), .completed(260)])
        XCTAssertEqual(inner[1]?.subscriptions, [Subscription(210, 240)])
        XCTAssertEqual(inner[2]?.subscriptions, [Subscription(240, 260)])
    }

    func testFlatMapLatest_sourceCompletingAfterTheLastInnerCompletes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let ys = scheduler.createColdObservable([.next(10, 5), .completed(20)])
        let res = scheduler.start {
            xs.asInfallible(onErrorJustReturn: 0).flatMapLatest { _ in ys.asInfallible(onErrorJustReturn: 0) }
        }
        XCTAssertEqual(res.events, [.next(220, 5), .completed(300)])
    }
}

extension InfallibleTests {
    func testFlatMap_reentrantElementsAreDeliveredInOrderWithoutDeadlock() {
        let subject = PublishSubject<Int>()
        var received: [Int] = []
        let subscription = subject.asInfallible(onErrorJustReturn: 0).flatMap { Infallible.just($0) }.subscribe(
            onNext: { value in
                received.append(value)
                if value < 3 { subject.onNext(value + 1) }
            })
        subject.onNext(1)
        XCTAssertEqual(received, [1, 2, 3])
        subscription.dispose()
    }
}
