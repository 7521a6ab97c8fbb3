import Rx
import RxTesting
import XCTest

final class WithUnretainedTests: RxTestCase {
    func testWithUnretained_combinesElementsWithTheLiveObject() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let holder = UnretainedHolder(UnretainedOwner(name: "a"))
        let observable = try xs(scheduler).withUnretained(XCTUnwrap(holder.owner)) { owner, value in
            "\(owner.name)\(value)"
        }
        let res = scheduler.start { observable }
        XCTAssertEqual(res.events, [.next(210, "a1"), .next(220, "a2"), .next(230, "a3"), .completed(300)])
    }

    func testWithUnretained_completesAtTheFirstElementAfterTheObjectWasFreed() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let source = xs(scheduler)
        let holder = UnretainedHolder(UnretainedOwner(name: "a"))
        let observable = try source.withUnretained(XCTUnwrap(holder.owner)) { owner, value in
            "\(owner.name)\(value)"
        }
        scheduler.scheduleAt(215) { holder.owner = nil }
        let res = scheduler.start { observable }
        XCTAssertEqual(res.events, [.next(210, "a1"), .completed(220)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 220)])
    }

    func testWithUnretained_tupleOverloadPairsTheObjectAndElement() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let holder = UnretainedHolder(UnretainedOwner(name: "a"))
        let owner = try XCTUnwrap(holder.owner)
        let observable = xs(scheduler).withUnretained(owner).map { pair in "\(pair.0.name)\(pair.1)" }
        let res = scheduler.start { observable }
        XCTAssertEqual(res.events, [.next(210, "a1"), .next(220, "a2"), .next(230, "a3"), .completed(300)])
    }

    func testWithUnretained_doesNotKeepTheObjectAlive() {
        let holder = UnretainedHolder(UnretainedOwner(name: "a"))
        weak var weakOwner: UnretainedOwner?
        weakOwner = holder.owner
        let subject = PublishSubject<Int>()
        var values: [String] = []
        var completions = 0
        let subscription = subject.withUnretained(holder.owner ?? UnretainedOwner(name: "unused")) { owner, value in
            "\(owner.name)\(value)"
        }.subscribe(onNext: { values.append($0) }, onCompleted: { completions += 1 })
        subject.onNext(1)
        holder.owner = nil
        XCTAssertNil(weakOwner)
        subject.onNext(2)
        XCTAssertEqual(values, ["a1"])
        XCTAssertEqual(completions, 1)
        XCTAssertFalse(subject.hasObservers)
        subscription.dispose()
    }

    func testWithUnretained_sourceErrorPassesThrough() {
        let scheduler = TestScheduler(initialClock: 0)
        let owner = UnretainedOwner(name: "a")
        let source = scheduler.createHotObservable([.next(210, 1), .error(220, testError)])
        let res = scheduler.start { source.withUnretained(owner) { $0.name + "\($1)" } }
        XCTAssertEqual(res.events, [.next(210, "a1"), .error(220, testError)])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 220)])
    }

    func testWithUnretained_disposeUnsubscribes() {
        let scheduler = TestScheduler(initialClock: 0)
        let owner = UnretainedOwner(name: "a")
        let source = xs(scheduler)
        let res = scheduler.start(disposed: 215) { source.withUnretained(owner) { $0.name + "\($1)" } }
        XCTAssertEqual(res.events, [.next(210, "a1")])
        XCTAssertEqual(source.subscriptions, [Subscription(200, 215)])
    }

    private func xs(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([.next(150, 0), .next(210, 1), .next(220, 2), .next(230, 3), .completed(300)])
    }
}

/// A class that is deliberately not `Sendable`, as the objects passed to `withUnretained`
/// usually are (view models, view controllers).
private final class UnretainedOwner {
    let name: String

    init(name: String) {
        self.name = name
    }
}

private final class UnretainedHolder {
    var owner: UnretainedOwner?

    init(_ owner: UnretainedOwner) {
        self.owner = owner
    }
}
