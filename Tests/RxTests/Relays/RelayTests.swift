import Rx
import RxTesting
import XCTest

final class RelayTests: RxTestCase {
    func testPublishRelay_deliversAcceptedElementsToCurrentObservers() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = PublishRelay<Int>()
        scheduler.scheduleAt(150) { relay.accept(1) }
        scheduler.scheduleAt(210) { relay.accept(2) }
        scheduler.scheduleAt(220) { relay.accept(3) }
        let res = scheduler.start(disposed: 215) { relay.asObservable() }
        XCTAssertEqual(res.events, [.next(210, 2)])
    }

    func testBehaviorRelay_deliversValueThenAcceptedElementsAndTracksValue() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = BehaviorRelay(value: 0)
        scheduler.scheduleAt(150) { relay.accept(1) }
        scheduler.scheduleAt(210) { relay.accept(2) }
        let res = scheduler.start { relay }
        XCTAssertEqual(res.events, [.next(200, 1), .next(210, 2)])
        XCTAssertEqual(relay.value, 2)
    }

    func testReplayRelay_replaysBufferedElements() {
        let scheduler = TestScheduler(initialClock: 0)
        let relay = ReplayRelay<Int>.create(bufferSize: 2)
        let unbounded = ReplayRelay<Int>.createUnbounded()
        let unbound = ReplayRelay<Int>.createUnbound()
        scheduler.scheduleAt(150) {
            for value in 1...3 {
                relay.accept(value)
                unbounded.accept(value)
                unbound.accept(value)
            }
        }
        scheduler.scheduleAt(210) { relay.accept(4) }
        let late = scheduler.createObserver(Int.self)
        let lateUnbound = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(300) {
            _ = unbounded.subscribe(late)
            _ = unbound.asObservable().subscribe(lateUnbound)
        }
        let res = scheduler.start { relay.asObservable() }
        XCTAssertEqual(res.events, [.next(200, 2), .next(200, 3), .next(210, 4)])
        XCTAssertEqual(late.events, [.next(300, 1), .next(300, 2), .next(300, 3)])
        XCTAssertEqual(lateUnbound.events, late.events)
    }

    func testBehaviorRelay_concurrentAcceptsLeaveLastValueAndOrderedObservers() {
        let relay = BehaviorRelay(value: 0)
        let failures = ShareFailureLog()
        let checker = ShareOrderChecker(failures: failures)
        let subscription = relay.subscribe(onNext: { checker.receive($0) })
        shareRunWhileEmitting(into: AnyObserver<Int> { relay.accept($0.element ?? -1) }) {
            for _ in 0..<200 { _ = relay.value }
        }
        XCTAssertEqual(failures.messages, [])
        subscription.dispose()
    }
}
