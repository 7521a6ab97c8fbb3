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
}
