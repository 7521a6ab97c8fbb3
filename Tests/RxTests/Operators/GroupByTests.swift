import Rx
import RxTesting
import XCTest

final class GroupByTests: RxTestCase {
    func testGroupBy_routesEachElementToTheGroupOfItsKey() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = words(scheduler, ending: .completed(300))
        let res = scheduler.start {
            xs.groupBy { $0.lowercased() }.flatMap { group in group.map { "\(group.key) \($0)" } }
        }
        XCTAssertEqual(
            res.events,
            [
                .next(210, "foo foo"), .next(220, "bar Bar"), .next(230, "foo FOO"), .next(240, "baz baz"),
                .next(250, "bar bar"), .completed(300),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testGroupBy_emitsEachGroupOnceWhenItsKeyFirstAppears() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = words(scheduler, ending: .completed(300))
        let res = scheduler.start { xs.groupBy { $0.lowercased() }.map { $0.key } }
        XCTAssertEqual(res.events, [.next(210, "foo"), .next(220, "bar"), .next(240, "baz"), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testGroupBy_keySelectorErrorGoesToEveryGroupThenDownstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = words(scheduler, ending: .completed(300))
        let run = GroupByRun(scheduler: scheduler)
        run.subscribe(at: 200) {
            xs.groupBy { word -> String in
                if word == "baz" { throw testError }
                return word.lowercased()
            }
        }
        scheduler.start()
        XCTAssertEqual(run.keys.events, [.next(210, "foo"), .next(220, "bar"), .error(240, testError)])
        XCTAssertEqual(
            run.elements.events,
            [
                .next(210, "foo foo"), .next(220, "bar Bar"), .next(230, "foo FOO"), .error(240, testError),
                .error(240, testError),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
        run.disposeAll()
    }

    func testGroupBy_sourceErrorGoesToEveryGroupThenDownstream() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = words(scheduler, ending: .error(260, testError))
        let run = GroupByRun(scheduler: scheduler)
        run.subscribe(at: 200) { xs.groupBy { $0.lowercased() } }
        scheduler.start()
        XCTAssertEqual(
            run.keys.events, [.next(210, "foo"), .next(220, "bar"), .next(240, "baz"), .error(260, testError)])
        XCTAssertEqual(
            run.elements.events,
            [
                .next(210, "foo foo"), .next(220, "bar Bar"), .next(230, "foo FOO"), .next(240, "baz baz"),
                .next(250, "bar bar"), .error(260, testError), .error(260, testError), .error(260, testError),
            ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
        run.disposeAll()
    }

    func testGroupBy_completionCompletesGroupsAndReleasesSourceWhileGroupsAreSubscribed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = words(scheduler, ending: .completed(300))
        let run = GroupByRun(scheduler: scheduler)
        run.subscribe(at: 200) { xs.groupBy { $0.lowercased() } }
        scheduler.start()
        XCTAssertEqual(Array(run.elements.events.suffix(3)), [.completed(300), .completed(300), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        run.disposeAll()
    }

    func testGroupBy_subscribedGroupsOutliveTheDisposedOuterSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([
            .next(210, "foo"), .next(220, "bar"), .next(240, "baz"), .next(250, "FOO"), .next(260, "Bar"),
            .next(290, "bar"), .completed(400),
        ])
        let run = GroupByRun(scheduler: scheduler)
        run.subscribe(at: 200) { xs.groupBy { $0.lowercased() } }
        scheduler.scheduleAt(235) { run.outer?.dispose() }
        scheduler.scheduleAt(255) { run.groups.first?.dispose() }
        scheduler.scheduleAt(280) { run.disposeAll() }
        scheduler.start()
        // "baz" arrives after the outer subscription ended: its group is never emitted.
        XCTAssertEqual(run.keys.events, [.next(210, "foo"), .next(220, "bar")])
        XCTAssertEqual(
            run.elements.events,
            [.next(210, "foo foo"), .next(220, "bar bar"), .next(250, "foo FOO"), .next(260, "bar Bar")])
        // The source lives until the last group subscription goes.
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 280)])
    }

    func testGroupBy_disposingOuterWithoutGroupSubscriptionsUnsubscribesSource() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = words(scheduler, ending: .completed(300))
        let res = scheduler.start(disposed: 235) { xs.groupBy { $0.lowercased() }.map { $0.key } }
        XCTAssertEqual(res.events, [.next(210, "foo"), .next(220, "bar")])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 235)])
    }

    func testGroupBy_groupSubscribedAfterCompletionGetsOnlyCompletion() {
        var groups: [GroupedObservable<Int, Int>] = []
        _ = Observable.of(1, 2, 3).groupBy { $0 % 2 }.subscribe(onNext: { groups.append($0) })
        XCTAssertEqual(groups.map(\.key), [1, 0])
        var events: [Event<Int>] = []
        for group in groups {
            _ = group.subscribe { events.append($0) }
        }
        XCTAssertEqual(events, [.completed, .completed])
    }

    func testGroupBy_emptySourceCompletesWithoutGroups() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.empty().groupBy { $0 }.map { $0.key } }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testGroupedObservable_exposesKeyAndSource() {
        let group = GroupedObservable(key: "k", source: Observable.of(1, 2))
        var values: [Int] = []
        _ = group.subscribe(onNext: { values.append($0) })
        _ = group.asObservable().subscribe(onNext: { values.append($0 * 10) })
        XCTAssertEqual(group.key, "k")
        XCTAssertEqual(values, [1, 2, 10, 20])
    }

    private func words(_ scheduler: TestScheduler, ending: Recorded<Event<String>>) -> TestableObservable<String> {
        scheduler.createHotObservable([
            .next(90, "early"), .next(210, "foo"), .next(220, "Bar"), .next(230, "FOO"), .next(240, "baz"),
            .next(250, "bar"), ending,
        ])
    }
}

/// Subscribes to a `groupBy` at a virtual time and to each group as it arrives, recording the
/// keys and the elements (as "key element") of every group.
private final class GroupByRun {
    let keys: TestableObserver<String>
    let elements: TestableObserver<String>
    let scheduler: TestScheduler
    var outer: Disposable?
    var groups: [Disposable] = []

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
        keys = scheduler.createObserver(String.self)
        elements = scheduler.createObserver(String.self)
    }

    func subscribe(at time: TestTime, _ make: @escaping () -> Observable<GroupedObservable<String, String>>) {
        scheduler.scheduleAt(time) {
            self.outer = make().subscribe(
                onNext: { group in
                    self.keys.onNext(group.key)
                    self.groups.append(group.map { "\(group.key) \($0)" }.subscribe(self.elements))
                },
                onError: { self.keys.onError($0) },
                onCompleted: { self.keys.onCompleted() })
        }
    }

    func disposeAll() {
        outer?.dispose()
        for group in groups { group.dispose() }
        outer = nil
        groups = []
    }
}
