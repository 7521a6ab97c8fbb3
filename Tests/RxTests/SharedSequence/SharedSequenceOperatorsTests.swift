import Rx
import RxTesting
import XCTest

/// Every operator on shared sequences, in virtual time under a mocked `SharingScheduler`.
/// A Driver over a hot observable delivers each element one tick after the source (the
/// `observe(on:)` hop on the `TestScheduler`).
final class SharedSequenceOperatorsTests: RxTestCase {
    private final class Owner: Sendable {}

    /// Runs `make` at 200 with `scheduler` as the sharing scheduler and records until 1000.
    private func record<Element>(
        _ scheduler: TestScheduler, _ make: @escaping () -> SharedSequence<DriverSharingStrategy, Element>
    ) -> [Recorded<Event<Element>>] {
        var events: [Recorded<Event<Element>>] = []
        withSharingScheduler(scheduler) { events = scheduler.start(make).events }
        return events
    }

    /// A Driver over a hot observable of `events`, delivered by `scheduler`.
    private func driver(_ scheduler: TestScheduler, _ events: [Recorded<Event<Int>>]) -> Driver<Int> {
        var driver = Driver<Int>.never()
        withSharingScheduler(scheduler) {
            driver = scheduler.createHotObservable(events).asDriver(onErrorJustReturn: -1)
        }
        return driver
    }

    private let numbers: [Recorded<Event<Int>>] = [
        .next(210, 1), .next(220, 2), .next(230, 2), .next(240, 3), .completed(300),
    ]

    func testMap_compactMap_filter() {
        var scheduler = TestScheduler(initialClock: 0)
        var xs = driver(scheduler, numbers)
        XCTAssertEqual(
            record(scheduler) { xs.map { $0 * 10 } },
            [.next(211, 10), .next(221, 20), .next(231, 20), .next(241, 30), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, numbers)
        XCTAssertEqual(
            record(scheduler) { xs.compactMap { $0 == 2 ? nil : $0 } },
            [.next(211, 1), .next(241, 3), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, numbers)
        XCTAssertEqual(
            record(scheduler) { xs.filter { $0 > 1 } }, [.next(221, 2), .next(231, 2), .next(241, 3), .completed(301)])
    }

    func testDistinctUntilChanged_allOverloads() {
        struct Item: Equatable { let key: Int }
        let expected: [Recorded<Event<Int>>] = [.next(211, 1), .next(221, 2), .next(241, 3), .completed(301)]
        let forms: [(Driver<Int>) -> Driver<Int>] = [
            { $0.distinctUntilChanged() },
            { $0.distinctUntilChanged { $0 } },
            { $0.distinctUntilChanged { $0 == $1 } },
            { $0.distinctUntilChanged({ $0 }, comparer: { $0 == $1 }) },
            { $0.map { Item(key: $0) }.distinctUntilChanged(at: \.key).map(\.key) },
        ]
        for form in forms {
            let scheduler = TestScheduler(initialClock: 0)
            withSharingScheduler(scheduler) {
                let xs = driver(scheduler, numbers)
                XCTAssertEqual(scheduler.start { form(xs) }.events, expected)
            }
        }
    }

    /// A Driver of `value * 10` ten ticks after it is subscribed.
    private static func inner(_ scheduler: TestScheduler, _ value: Int) -> Driver<Int> {
        Observable<Int>.timer(.seconds(10), scheduler: scheduler).map { _ in value * 10 }
            .asDriver(onErrorJustReturn: -1)
    }

    func testFlatMap_flatMapLatest_flatMapFirst() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(215, 2), .completed(300)]
        let first = TestScheduler(initialClock: 0)
        let firstSource = driver(first, events)
        XCTAssertEqual(
            record(first) { firstSource.flatMap { Self.inner(first, $0) } },
            [.next(222, 10), .next(227, 20), .completed(301)])
        let latest = TestScheduler(initialClock: 0)
        let latestSource = driver(latest, events)
        XCTAssertEqual(
            record(latest) { latestSource.flatMapLatest { Self.inner(latest, $0) } },
            [.next(227, 20), .completed(301)])
        let firstOnly = TestScheduler(initialClock: 0)
        let firstOnlySource = driver(firstOnly, events)
        XCTAssertEqual(
            record(firstOnly) { firstOnlySource.flatMapFirst { Self.inner(firstOnly, $0) } },
            [.next(222, 10), .completed(301)])
    }

    func testSwitchLatest_andMergeOfInnerSequences() {
        var scheduler = TestScheduler(initialClock: 0)
        var events: [Recorded<Event<Int>>] = []
        withSharingScheduler(scheduler) {
            let a = driver(scheduler, [.next(220, 1), .next(240, 3), .completed(500)])
            let b = driver(scheduler, [.next(250, 2), .completed(260)])
            let outer = scheduler.createHotObservable([.next(210, a), .next(230, b), .completed(270)])
                .asDriver(onErrorJustReturn: .never())
            events =
                scheduler.start { outer.switchLatest() }
                .events
        }
        XCTAssertEqual(events, [.next(221, 1), .next(251, 2), .completed(271)])

        scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let a = driver(scheduler, [.next(220, 1), .next(240, 3), .completed(280)])
            let b = driver(scheduler, [.next(250, 2), .completed(260)])
            let outer = scheduler.createHotObservable([.next(210, a), .next(230, b), .completed(270)])
                .asDriver(onErrorJustReturn: .never())
            XCTAssertEqual(
                scheduler.start { outer.merge() }.events,
                [.next(221, 1), .next(241, 3), .next(251, 2), .completed(281)])
        }
        scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let a = driver(scheduler, [.next(220, 1), .completed(240)])
            let b = driver(scheduler, [.next(230, 2), .next(250, 4), .completed(260)])
            let outer = scheduler.createHotObservable([.next(210, a), .next(215, b), .completed(270)])
                .asDriver(onErrorJustReturn: .never())
            // `b` waits for `a`: its 2 at 230 is missed.
            XCTAssertEqual(
                scheduler.start { outer.merge(maxConcurrent: 1) }.events,
                [.next(221, 1), .next(251, 4), .completed(271)])
        }
    }

    /// `concat` of a sequence walks it per subscription, one source per completion: an
    /// endless sequence of Drivers is not built when `concat` is called.
    func testConcat_ofAnEndlessSequence_buildsEachSourceWhenItsTurnComes() {
        let scheduler = TestScheduler(initialClock: 0)
        let built = BuiltCount()
        withSharingScheduler(scheduler) {
            let drivers = (0...).lazy.map { value -> Driver<Int> in
                built.value += 1
                return Driver.just(value)
            }
            let all = Driver.concat(drivers)
            XCTAssertEqual(built.value, 0)
            let res = scheduler.start { all.asObservable().take(3) }
            XCTAssertEqual(res.events.compactMap { $0.value.element }, [0, 1, 2])
            XCTAssertEqual(built.value, 3)
        }
    }

    func testStaticMerge_andConcat() {
        for form in 0..<3 {
            let scheduler = TestScheduler(initialClock: 0)
            withSharingScheduler(scheduler) {
                let a = driver(scheduler, [.next(210, 1), .completed(230)])
                let b = driver(scheduler, [.next(220, 2), .completed(240)])
                let res = scheduler.start { () -> Driver<Int> in
                    switch form {
                    case 0: return Driver.merge(a, b)
                    case 1: return Driver.merge([a, b])
                    default: return Driver.merge(AnyCollection([a, b]))
                    }
                }
                XCTAssertEqual(res.events, [.next(211, 1), .next(221, 2), .completed(241)])
            }
        }
        for form in 0..<2 {
            let scheduler = TestScheduler(initialClock: 0)
            withSharingScheduler(scheduler) {
                let a = scheduler.createColdObservable([.next(10, 1), .completed(20)]).asDriver(onErrorJustReturn: -1)
                let b = scheduler.createColdObservable([.next(10, 2), .completed(20)]).asDriver(onErrorJustReturn: -1)
                let res = scheduler.start { () -> Driver<Int> in
                    form == 0 ? Driver.concat([a, b]) : Driver.concat(AnySequence([a, b]))
                }
                XCTAssertEqual(res.events, [.next(211, 1), .next(232, 2), .completed(242)])
            }
        }
    }

    func testStartWith_scan_skip() {
        var scheduler = TestScheduler(initialClock: 0)
        var xs = driver(scheduler, numbers)
        XCTAssertEqual(
            record(scheduler) { xs.startWith(0) },
            [.next(200, 0), .next(211, 1), .next(221, 2), .next(231, 2), .next(241, 3), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, numbers)
        XCTAssertEqual(
            record(scheduler) { xs.scan(0, accumulator: +) },
            [.next(211, 1), .next(221, 3), .next(231, 5), .next(241, 8), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, numbers)
        XCTAssertEqual(record(scheduler) { xs.skip(2) }, [.next(231, 2), .next(241, 3), .completed(301)])
    }

    func testWithLatestFrom_bothForms() {
        var scheduler = TestScheduler(initialClock: 0)
        var events: [Recorded<Event<String>>] = []
        withSharingScheduler(scheduler) {
            let xs = driver(scheduler, [.next(210, 1), .next(230, 2), .completed(300)])
            let ys = driver(scheduler, [.next(220, 10), .completed(400)])
            events = scheduler.start { xs.withLatestFrom(ys) { "\($0)-\($1)" } }.events
        }
        XCTAssertEqual(events, [.next(231, "2-10"), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let xs = driver(scheduler, [.next(210, 1), .next(230, 2), .completed(300)])
            let ys = driver(scheduler, [.next(220, 10), .completed(400)])
            XCTAssertEqual(scheduler.start { xs.withLatestFrom(ys) }.events, [.next(231, 10), .completed(301)])
        }
    }

    func testWithUnretained_bothForms() {
        let owner = Owner()
        var scheduler = TestScheduler(initialClock: 0)
        var xs = driver(scheduler, [.next(210, 1), .completed(300)])
        XCTAssertEqual(
            record(scheduler) { xs.withUnretained(owner) { object, value in object === owner ? value : -1 } },
            [.next(211, 1), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, [.next(210, 1), .completed(300)])
        XCTAssertEqual(
            record(scheduler) { xs.withUnretained(owner).map { $0.0 === owner ? $0.1 : -1 } },
            [.next(211, 1), .completed(301)])
    }

    /// As `Observable.do`: completion disposes the source subscription before
    /// `afterCompleted` runs.
    func testDo_runsEachSideEffectOnceForSharedObservers() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = TraitsBox<[String]>([])
        withSharingScheduler(scheduler) {
            let xs = driver(scheduler, [.next(210, 1), .completed(300)])
                .do(
                    onNext: { value in log.value.append("next \(value)") },
                    afterNext: { value in log.value.append("after \(value)") },
                    onCompleted: { log.value.append("completed") },
                    afterCompleted: { log.value.append("afterCompleted") },
                    onSubscribe: { log.value.append("subscribe") },
                    onSubscribed: { log.value.append("subscribed") },
                    onDispose: { log.value.append("dispose") })
            let other = scheduler.createObserver(Int.self)
            let bag = DisposeBag()
            scheduler.scheduleAt(200) { bag.insert(xs.drive(other)) }
            let res = scheduler.start { xs }
            XCTAssertEqual(res.events, [.next(211, 1), .completed(301)])
            XCTAssertEqual(other.events, [.next(211, 1), .completed(301)])
        }
        XCTAssertEqual(
            log.value,
            ["subscribe", "subscribed", "next 1", "after 1", "completed", "dispose", "afterCompleted"])
    }

    func testDebug_passesEventsThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = driver(scheduler, [.next(210, 1), .completed(300)])
        XCTAssertEqual(record(scheduler) { xs.debug("driver") }, [.next(211, 1), .completed(301)])
    }

    func testDebounce_throttle_delay_useTheSharingScheduler() {
        let events: [Recorded<Event<Int>>] = [.next(210, 1), .next(215, 2), .next(240, 3), .completed(300)]
        var scheduler = TestScheduler(initialClock: 0)
        var xs = driver(scheduler, events)
        XCTAssertEqual(
            record(scheduler) { xs.debounce(.seconds(10)) }, [.next(226, 2), .next(251, 3), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, events)
        XCTAssertEqual(
            record(scheduler) { xs.throttle(.seconds(10)) },
            [.next(211, 1), .next(221, 2), .next(241, 3), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, events)
        XCTAssertEqual(
            record(scheduler) { xs.throttle(.seconds(10), latest: false) },
            [.next(211, 1), .next(241, 3), .completed(301)])
        scheduler = TestScheduler(initialClock: 0)
        xs = driver(scheduler, events)
        XCTAssertEqual(
            record(scheduler) { xs.delay(.seconds(5)) },
            [.next(216, 1), .next(221, 2), .next(246, 3), .completed(306)])
    }

    func testCollectionZipAndCombineLatest() {
        let forms: [([Driver<Int>]) -> Driver<[Int]>] = [
            { Driver.zip($0) }, { Driver.zip($0) { $0.map { $0 * 10 } } },
            { Driver.combineLatest($0) }, { Driver.combineLatest($0) { $0.map { $0 * 10 } } },
        ]
        let expected: [[Recorded<Event<[Int]>>]] = [
            [.next(221, [1, 2]), .completed(301)], [.next(221, [10, 20]), .completed(301)],
            [.next(221, [1, 2]), .next(231, [3, 2]), .completed(301)],
            [.next(221, [10, 20]), .next(231, [30, 20]), .completed(301)],
        ]
        for (form, expected) in zip(forms, expected) {
            let scheduler = TestScheduler(initialClock: 0)
            withSharingScheduler(scheduler) {
                let a = driver(scheduler, [.next(210, 1), .next(230, 3), .completed(300)])
                let b = driver(scheduler, [.next(220, 2), .completed(300)])
                XCTAssertEqual(scheduler.start { form([a, b]) }.events, expected)
            }
        }
    }

    func testOperators_keepTheStrategy() {
        let scheduler = TestScheduler(initialClock: 0)
        withSharingScheduler(scheduler) {
            let signal: Signal<Int> = scheduler.createHotObservable([.next(210, 1), .completed(300)])
                .asSignal(onErrorJustReturn: -1)
            let mapped: Signal<Int> = signal.map { $0 + 1 }.filter { $0 > 0 }.startWith(0)
            XCTAssertEqual(scheduler.start { mapped }.events, [.next(200, 0), .next(211, 2), .completed(301)])
        }
    }
}

private final class BuiltCount: @unchecked Sendable {
    var value = 0
}
