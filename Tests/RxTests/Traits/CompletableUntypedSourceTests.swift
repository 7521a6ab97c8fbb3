import Foundation
import Rx
import RxTesting
import XCTest

/// RxSwift's tests build completables from untyped test sources
/// (`createColdObservable([.completed(20)]).asCompletable()`): `asCompletable()` where
/// `Element == Never` lets the element type be inferred, and the result composes with the
/// trait's operators inside `TestScheduler.start`.
final class CompletableUntypedSourceTests: XCTestCase {
    func testTimeout_overAnUntypedSourceThatIsTooSlow_failsWithTimeout() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.completed(20)]).asCompletable()

        let res = scheduler.start { xs.timeout(.seconds(10), scheduler: scheduler) }

        XCTAssertEqual(res.events, [.error(210, RxError.timeout)])
    }

    func testTimeout_overAnUntypedSourceThatCompletesInTime_completes() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createColdObservable([.completed(20)]).asCompletable()

        let res = scheduler.start { xs.timeout(.seconds(30), scheduler: scheduler) }

        XCTAssertEqual(res.events, [.completed(220)])
    }
}
