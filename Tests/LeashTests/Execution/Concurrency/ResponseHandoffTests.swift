import Foundation
import LeashTestSupport
import XCTest

@testable import Leash

/// `ResponseHandoff` as `TaskMailbox` implements it: the mailbox through which the transport
/// hands an `async` execution's response to the awaiting task.
final class ResponseHandoffTests: XCTestCase {
    /// Runs jobs from `mailbox` until it finishes; returns how many ran.
    private func drain(_ mailbox: TaskMailbox) async -> Int {
        var ran = 0
        while case .job(let job) = await mailbox.next() {
            job()
            ran += 1
        }
        return ran
    }

    func testHand_neverRunsTheJobInPlace() async {
        // It is called on URLSession's work queue, where nothing may wait for that queue.
        let mailbox = TaskMailbox()
        let ran = SpecLocked(false)
        mailbox.hand { ran.withLock { $0 = true } }
        XCTAssertFalse(ran.value, "run by the hand-off itself")
        mailbox.hand { mailbox.finish() }
        let jobs = await drain(mailbox)
        XCTAssertEqual(jobs, 2)
        XCTAssertTrue(ran.value, "run by the awaiting task")
    }

    func testJobsHandedBeforeTheTaskWaits_runInOrder_thenFinishEndsTheLoop() async {
        let mailbox = TaskMailbox()
        let order = SpecLocked<[Int]>([])
        mailbox.hand { order.withLock { $0.append(1) } }
        mailbox.hand {
            order.withLock { $0.append(2) }
            mailbox.finish()
        }
        let ran = await drain(mailbox)
        XCTAssertEqual(ran, 2)
        XCTAssertEqual(order.value, [1, 2])
    }

    func testJobHandedFromAnotherThreadWhileTheTaskWaits_resumesIt() async {
        let mailbox = TaskMailbox()
        let order = SpecLocked<[Int]>([])
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
            mailbox.hand {
                order.withLock { $0.append(1) }
                DispatchQueue.global().async { mailbox.finish() }
            }
        }
        let ran = await drain(mailbox)
        XCTAssertEqual(ran, 1)
        XCTAssertEqual(order.value, [1])
    }

    func testJobsHandedAfterFinish_areDroppedAndReleased() async {
        let mailbox = TaskMailbox()
        mailbox.finish()
        weak var weakToken: ReleaseToken?
        do {
            let token = ReleaseToken()
            weakToken = token
            mailbox.hand { token.touch() }
        }
        XCTAssertNil(weakToken, "a dropped job is let go at once")
        let ran = await drain(mailbox)
        XCTAssertEqual(ran, 0)
    }

    func testFinishWithJobsWaiting_dropsThem() async {
        let mailbox = TaskMailbox()
        let order = SpecLocked<[Int]>([])
        mailbox.hand { order.withLock { $0.append(1) } }
        mailbox.finish()
        let ran = await drain(mailbox)
        XCTAssertEqual(ran, 0)
        XCTAssertEqual(order.value, [])
    }

    func testManyThreadsHandingJobs_eachRunsOnceOnTheTask() async {
        let mailbox = TaskMailbox()
        let order = SpecLocked<[Int]>([])
        let count = 1_000
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: count) { index in
                mailbox.hand {
                    order.withLock { $0.append(index) }
                    if order.value.count == count { mailbox.finish() }
                }
            }
        }
        let ran = await drain(mailbox)
        XCTAssertEqual(ran, count)
        XCTAssertEqual(Set(order.value), Set(0..<count))
    }
}
