import Foundation
import LeashTestSupport
import Rx
import RxTesting
import XCTest

@testable import Leash

/// The deadline of one execution, in virtual time: which of "the final value is being
/// delivered" and "the limit passed" wins, and the idle limit.
final class ExecutionDeadlineTests: XCTestCase {
    private var scheduler: TestScheduler!
    private var manager: Manager!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scheduler = TestScheduler(initialClock: 0)
        manager = try Manager.Builder().url("https://api.example.com").scheduler(scheduler).build()
    }

    override func tearDown() {
        scheduler = nil
        manager = nil
        super.tearDown()
    }

    private func started(whole: TimeInterval? = nil, idle: TimeInterval? = nil) -> (
        ExecutionDeadline, SpecLocked<[String]>
    ) {
        let deadline = ExecutionDeadline(limits: .init(whole: whole, idle: idle), manager: manager)
        let log = SpecLocked<[String]>([])
        let scheduler = self.scheduler!
        deadline.start { seconds in log.withLock { $0.append("expired \(seconds) at \(scheduler.clock)") } }
        return (deadline, log)
    }

    func testWholeLimit_firesOnceExactlyOnTime() {
        let (deadline, log) = started(whole: 5)
        scheduler.advanceTo(4)
        XCTAssertEqual(log.value, [])
        scheduler.advanceTo(100)
        XCTAssertEqual(log.value, ["expired 5.0 at 5"])
        XCTAssertFalse(deadline.settle(), "the timeout won: the value must not be delivered")
    }

    func testSettledBeforeTheLimit_neverFires_evenIfTheSubscriberIsStillBusy() {
        let (deadline, log) = started(whole: 5)
        scheduler.advanceTo(3)
        XCTAssertTrue(deadline.settle())
        scheduler.advanceTo(100)
        XCTAssertEqual(log.value, [], "a deadline is met once the response is complete")
        deadline.cancel()
    }

    func testRetryAfterSettling_rearms_andTheLimitStillCountsFromTheStart() throws {
        let (deadline, log) = started(whole: 5)
        scheduler.advanceTo(2)
        XCTAssertTrue(deadline.settle())
        try deadline.rearm()
        scheduler.advanceTo(100)
        XCTAssertEqual(log.value, ["expired 5.0 at 5"])
    }

    func testLimitPassingWhileSettled_thenARetry_endsWithTimeoutInsteadOfRetrying() {
        let (deadline, log) = started(whole: 5)
        XCTAssertTrue(deadline.settle())
        scheduler.advanceTo(10)
        XCTAssertThrowsError(try deadline.rearm()) { error in
            guard case .timeout(let seconds)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertEqual(seconds, 5)
        }
        XCTAssertEqual(log.value, [], "reported by the retry that cannot start, not by the timer")
    }

    func testIdleLimit_activityPushesItBack_andItFiresAfterTheLastActivity() {
        let (deadline, log) = started(idle: 3)
        scheduler.advanceTo(2)
        deadline.recordActivity()
        scheduler.advanceTo(4)
        deadline.recordActivity()
        scheduler.advanceTo(6)
        XCTAssertEqual(log.value, [], "bytes moved within every 3 s")
        scheduler.advanceTo(100)
        XCTAssertEqual(log.value, ["expired 3.0 at 7"])
    }

    func testCancel_stopsEveryTimer_andLetsGoOfTheHandler() {
        let deadline = ExecutionDeadline(limits: .init(whole: 5, idle: 2), manager: manager)
        weak var weakToken: ReleaseToken?
        do {
            let token = ReleaseToken()
            weakToken = token
            deadline.start { _ in token.touch() }
        }
        deadline.cancel()
        XCTAssertNil(weakToken)
        scheduler.advanceTo(100)
    }

    func testIdleLimit_waitsWhileSuspended_andCountsAgainFromTheResume() {
        let (deadline, log) = started(idle: 3)
        scheduler.advanceTo(2)
        deadline.pauseIdle(true)
        scheduler.advanceTo(10)
        XCTAssertEqual(log.value, [], "no bytes move while suspended: that is not a stall")
        deadline.pauseIdle(false)
        scheduler.advanceTo(100)
        XCTAssertEqual(log.value, ["expired 3.0 at 13"])
    }

    func testTheTimeASubscriberTakesOverProgress_isNotIdle() {
        let (deadline, log) = started(idle: 3)
        let scheduler = self.scheduler!
        deadline.delivering { scheduler.advanceTo(10) }
        XCTAssertEqual(log.value, [], "the subscriber held the progress from 0 to 10")
        scheduler.advanceTo(100)
        XCTAssertEqual(log.value, ["expired 3.0 at 13"], "counted from the delivery's end")
    }

    func testTheTargetIsToldAtMostOnce_whenBothLimitsPass() {
        let (_, log) = started(whole: 4, idle: 4)
        scheduler.advanceTo(100)
        XCTAssertEqual(log.value, ["expired 4.0 at 4"])
    }
}
