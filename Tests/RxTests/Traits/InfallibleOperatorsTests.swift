import Rx
import RxTesting
import XCTest

/// The single-source operators of `Infallible`: each wraps the `Observable` operator, so
/// these check the wiring (arguments reach the operator, the result is the operator's).
final class InfallibleOperatorsTests: RxTestCase {
    /// An `Infallible` over a hot observable of `events` (which hold no error).
    private func hot<Element>(_ scheduler: TestScheduler, _ events: [Recorded<Event<Element>>]) -> Infallible<Element> {
        scheduler.createHotObservable(events).asInfallible(onErrorRecover: { _ in .empty() })
    }

    // MARK: distinctUntilChanged

    func testDistinctUntilChanged_equatable() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(
            scheduler,
            [.next(210, 1), .next(220, 1), .next(230, 2), .next(240, 2), .next(250, 1), .completed(260)])
        let res = scheduler.start { xs.distinctUntilChanged() }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .next(250, 1), .completed(260)])
    }

    func testDistinctUntilChanged_keySelector() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(220, 3), .next(230, 2), .next(240, 4), .next(250, 5)])
        let res = scheduler.start { xs.distinctUntilChanged { $0 % 2 } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .next(250, 5)])
    }

    func testDistinctUntilChanged_comparerComparesWithTheLastElementLetThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(220, 2), .next(230, 5), .next(240, 6), .next(250, 10)])
        let res = scheduler.start { xs.distinctUntilChanged { abs($0 - $1) <= 1 } }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 5), .next(250, 10)])
    }

    func testDistinctUntilChanged_keySelectorAndComparer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 11), .next(220, 15), .next(230, 21)])
        let res = scheduler.start { xs.distinctUntilChanged({ $0 / 10 }, comparer: { $0 == $1 }) }
        XCTAssertEqual(res.events, [.next(210, 11), .next(230, 21)])
    }

    func testDistinctUntilChanged_atKeyPath() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(
            scheduler, [.next(210, "a"), .next(220, "b"), .next(230, "cc"), .next(240, "dd"), .next(250, "e")])
        let res = scheduler.start { xs.distinctUntilChanged(at: \.count) }
        XCTAssertEqual(res.events, [.next(210, "a"), .next(230, "cc"), .next(250, "e")])
    }

    // MARK: scan

    func testScanInto_accumulatesInPlace() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start { xs.scan(into: [Int]()) { $0.append($1) } }
        XCTAssertEqual(res.events, [.next(210, [1]), .next(220, [1, 2]), .next(230, [1, 2, 3]), .completed(240)])
    }

    func testScan_accumulatesFromTheSeed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start { xs.scan(10) { $0 + $1 } }
        XCTAssertEqual(res.events, [.next(210, 11), .next(220, 13), .next(230, 16), .completed(240)])
    }

    // MARK: time

    func testDebounce_deliversTheLastElementOfEachBurst() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(220, 2), .next(260, 3), .completed(300)])
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(240, 2), .next(280, 3), .completed(300)])
    }

    func testThrottle_latestDeliversTheLastElementOfTheWindow() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(215, 2), .next(220, 3), .next(260, 4), .completed(300)])
        let res = scheduler.start { xs.throttle(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 3), .next(260, 4), .completed(300)])
    }

    func testThrottle_notLatestDropsTheWindow() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(215, 2), .next(220, 3), .next(260, 4), .completed(300)])
        let res = scheduler.start { xs.throttle(.seconds(20), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(260, 4), .completed(300)])
    }

    // MARK: take and skip

    private func numbers(_ scheduler: TestScheduler) -> Infallible<Int> {
        hot(scheduler, [.next(210, 1), .next(220, 2), .next(240, 3), .completed(300)])
    }

    func testTakeUntilInfallible_completesWhenTheOtherEmits() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let other = hot(scheduler, [.next(230, "stop")])
        let res = scheduler.start { xs.take(until: other) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
    }

    func testTakeUntilObservable_completesWhenTheOtherEmits() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let other = scheduler.createHotObservable([.next(230, "stop")])
        let res = scheduler.start { xs.take(until: other) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(other.subscriptions, [Subscription(200, 230)])
    }

    func testTakeUntilPredicate_behaviors() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        XCTAssertEqual(
            scheduler.start { xs.take(until: { $0 == 2 }) }.events, [.next(210, 1), .completed(220)])
        let scheduler2 = TestScheduler(initialClock: 0)
        let ys = numbers(scheduler2)
        XCTAssertEqual(
            scheduler2.start { ys.take(until: { $0 == 2 }, behavior: .inclusive) }.events,
            [.next(210, 1), .next(220, 2), .completed(220)])
    }

    func testTakeWhile_behaviors() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        XCTAssertEqual(
            scheduler.start { xs.take(while: { $0 < 3 }) }.events, [.next(210, 1), .next(220, 2), .completed(240)])
        let scheduler2 = TestScheduler(initialClock: 0)
        let ys = numbers(scheduler2)
        XCTAssertEqual(
            scheduler2.start { ys.take(while: { $0 < 2 }, behavior: .inclusive) }.events,
            [.next(210, 1), .next(220, 2), .completed(220)])
    }

    func testTakeCount_completesAfterTheCount() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let res = scheduler.start { xs.take(2) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(220)])
    }

    func testTakeCount_negativeCompletesAtOnceInsteadOfFailing() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createHotObservable([.next(210, 1), .completed(300)])
        let res = scheduler.start { source.asInfallible(onErrorJustReturn: 0).take(-1) }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertEqual(source.subscriptions, [])
    }

    func testTakeFor_completesAfterTheDuration() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let res = scheduler.start { xs.take(for: .seconds(25), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(225)])
    }

    func testSkipWhile_startsAtTheFirstFailingElement() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let res = scheduler.start { xs.skip(while: { $0 < 2 }) }
        XCTAssertEqual(res.events, [.next(220, 2), .next(240, 3), .completed(300)])
    }

    func testSkipUntil_startsWhenTheOtherEmits() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = numbers(scheduler)
        let other = scheduler.createHotObservable([.next(215, "go")])
        let res = scheduler.start { xs.skip(until: other) }
        XCTAssertEqual(res.events, [.next(220, 2), .next(240, 3), .completed(300)])
    }

    // MARK: share, do

    func testShare_subscribesTheSourceOnceForEveryObserver() {
        let scheduler = TestScheduler(initialClock: 0)
        let source = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .completed(30)])
        let shared = source.asInfallible(onErrorJustReturn: 0).share(replay: 1)
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        let subscriptions = TraitsBox<[Disposable]>([])
        scheduler.scheduleAt(200) { subscriptions.update { $0.append(shared.bind(to: first)) } }
        scheduler.scheduleAt(215) { subscriptions.update { $0.append(shared.bind(to: second)) } }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(second.events, [.next(215, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 230)])
    }

    func testDo_runsEveryHandlerInOrder() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .completed(220)])
        let log = TraitsBox<[String]>([])
        let res = scheduler.start {
            xs.do(
                onNext: { log.log("next \($0)") }, afterNext: { log.log("afterNext \($0)") },
                onCompleted: { log.log("completed") }, afterCompleted: { log.log("afterCompleted") },
                onSubscribe: { log.log("subscribe") }, onSubscribed: { log.log("subscribed") },
                onDispose: { log.log("dispose") })
        }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(
            log.value, ["subscribe", "subscribed", "next 1", "afterNext 1", "completed", "afterCompleted", "dispose"])
    }

    // MARK: withUnretained

    private final class Owner: Sendable {
        let name: String
        init(name: String) { self.name = name }
    }

    func testWithUnretained_resultSelectorGetsTheObject() {
        let owner = Owner(name: "owner")
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .completed(220)])
        let res = scheduler.start { xs.withUnretained(owner) { "\($0.name) \($1)" } }
        XCTAssertEqual(res.events, [.next(210, "owner 1"), .completed(220)])
    }

    func testWithUnretained_tuplesPairTheObjectAndElement() {
        let owner = Owner(name: "owner")
        var pairs: [String] = []
        _ = Infallible.of(1, 2).withUnretained(owner).subscribe(onNext: { object, value in
            pairs.append("\(object === owner) \(value)")
        })
        XCTAssertEqual(pairs, ["true 1", "true 2"])
    }

    func testWithUnretained_completesOnceTheObjectIsGone() {
        var owner: Owner? = Owner(name: "owner")
        let subject = PublishSubject<Int>()
        var log: [String] = []
        let subscription = subject.asInfallible(onErrorJustReturn: 0).withUnretained(owner!).subscribe(
            onNext: { log.append("\($0.name) \($1)") }, onCompleted: { log.append("completed") })
        subject.onNext(1)
        owner = nil
        subject.onNext(2)
        XCTAssertEqual(log, ["owner 1", "completed"])
        subscription.dispose()
    }

    // MARK: flatMapFirst, concatMap, deferred

    func testFlatMapFirst_dropsElementsWhileAnInnerRuns() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(220, 2), .next(240, 3), .completed(300)])
        let inner = [
            1: scheduler.createColdObservable([.next(10, 10), .completed(20)]),
            2: scheduler.createColdObservable([.next(10, 20), .completed(20)]),
            3: scheduler.createColdObservable([.next(10, 30), .completed(20)]),
        ]
        let res = scheduler.start {
            xs.flatMapFirst { inner[$0]!.asInfallible(onErrorJustReturn: 0) }
        }
        XCTAssertEqual(res.events, [.next(220, 10), .next(250, 30), .completed(300)])
        XCTAssertEqual(inner[2]?.subscriptions, [])
    }

    func testConcatMap_runsInnersOneAfterAnother() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = hot(scheduler, [.next(210, 1), .next(220, 2), .completed(230)])
        let inner = [
            1: scheduler.createColdObservable([.next(10, 11), .next(20, 12), .completed(30)]),
            2: scheduler.createColdObservable([.next(5, 21), .completed(10)]),
        ]
        let res = scheduler.start {
            xs.concatMap { inner[$0]!.asInfallible(onErrorJustReturn: 0) }
        }
        XCTAssertEqual(res.events, [.next(220, 11), .next(230, 12), .next(245, 21), .completed(250)])
        XCTAssertEqual(inner[2]?.subscriptions, [Subscription(240, 250)])
    }

    func testDeferred_factoryRunsPerSubscriptionAndMayThrowAsInRxSwift() {
        let calls = TraitsBox(0)
        let deferred = Infallible<Int>.deferred {
            let call = calls.update { count -> Int in
                count += 1
                return count
            }
            if call == 2 { throw testError }
            return Infallible.just(call)
        }
        XCTAssertEqual(traitsEvents { deferred }, [.next(200, 1), .completed(200)])
        XCTAssertEqual(traitsEvents { deferred }, [.error(200, testError)])
    }
}
