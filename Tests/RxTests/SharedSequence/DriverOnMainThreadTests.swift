import Foundation
import Rx
import XCTest

/// Drivers created and driven on the main thread, with the real `MainScheduler.instance`.
final class DriverOnMainThreadTests: RxTestCase {
    /// `Driver.just` completes while `MainScheduler.instance` is still running its
    /// subscription; disposing that subscription then must not be queued on the main queue
    /// (RxSwift disposes it right after the subscription returns). Queued, it keeps
    /// `MainScheduler.instance` from running anything at once until the main queue drains,
    /// so every Driver driven after it on the main thread turned asynchronous (RxCocoa's
    /// Driver+Test drive tests, run one after another).
    func testDriveJust_twiceOnTheMainThread_deliversBothAtOnce() {
        XCTAssertTrue(Thread.isMainThread)
        drainMainQueue()
        var first: [Int] = []
        var second: [Int] = []

        _ = Driver.just(1).drive(onNext: { first.append($0) })
        _ = Driver.just(2).drive(onNext: { second.append($0) })

        XCTAssertEqual(first, [1])
        XCTAssertEqual(second, [2])
        drainMainQueue()
    }

    /// The same with `subscribe(on: MainScheduler.instance)` alone: afterwards the
    /// scheduler still runs an action at once on the main thread.
    func testSubscribeOnMain_ofASourceCompletingAtOnce_leavesNothingQueued() {
        drainMainQueue()
        _ = Observable.just(1).subscribe(on: MainScheduler.instance).subscribe()
        let runs = FilterCallCounter()

        _ = MainScheduler.instance.schedule(()) { _ in
            runs.increment()
            return Disposables.create()
        }

        XCTAssertEqual(runs.value, 1, "ran at once")
        drainMainQueue()
    }

    /// A Driver that drives a relay from inside the delivery of another Driver (each on the
    /// main scheduler, at once on the main thread) still delivers at once: every shared
    /// sequence has its own `MainScheduler` (as RxCocoa's `SharingScheduler`), whose count
    /// of queued actions is its own, so one Driver's running delivery does not make the next
    /// one queue behind it (RxCocoa's testDrivingOrderOfSynchronousSubscriptions).
    func testDriveIntoARelayThatADriverDrivesFrom_keepsTheOrderAtOnce() {
        drainMainQueue()
        let relay = BehaviorRelay(value: "initial")
        var received: [String] = []
        let bag = DisposeBag()

        bag.insert(relay.asDriver().drive(onNext: { received.append($0) }))
        bag.insert(Observable.just("first").asDriver(onErrorJustReturn: "").drive(relay))
        bag.insert(Observable.just("second").asDriver(onErrorJustReturn: "").drive(relay))

        XCTAssertEqual(received, ["initial", "first", "second"])
        drainMainQueue()
    }

    /// Nested `flatMapLatest` of Drivers on the main thread deliver at once.
    func testFlatMapLatestOfDrivers_onTheMainThread_deliversAtOnce() {
        drainMainQueue()
        var latest: [Int] = []
        let subscription = BehaviorSubject(value: 1).asDriver(onErrorJustReturn: 0)
            .flatMapLatest { Driver.just($0 * 2) }
            .flatMapLatest { Observable.just($0).asDriver(onErrorJustReturn: -1) }
            .drive(onNext: { latest.append($0) })

        subscription.dispose()

        XCTAssertEqual(latest, [2])
        drainMainQueue()
    }

    /// Each shared sequence gets a new `MainScheduler`, never `MainScheduler.instance`.
    func testSharingScheduler_makesANewMainSchedulerEachTime() {
        let first = SharingScheduler.make()
        let second = SharingScheduler.make()

        XCTAssertTrue(first is MainScheduler)
        XCTAssertFalse((first as AnyObject) === (second as AnyObject))
        XCTAssertFalse((first as AnyObject) === MainScheduler.instance)
    }
}
