import Foundation
import XCTest

@testable import Leash

/// `StreamBacklog` holding a stream back by suspending its task (Apple platforms' way,
/// which FoundationNetworking cannot run against a server: its `suspend()` does not pause
/// a running transfer), with a task that records what it was told.
final class StreamBacklogTests: XCTestCase {
    private final class RecordingTask: SuspendableTask, @unchecked Sendable {
        // @unchecked: all state is behind `lock`.
        private let lock = NSLock()
        private var calls: [String] = []
        var log: [String] { lock.withLock { calls } }
        func suspend() { lock.withLock { calls.append("suspend") } }
        func resume() { lock.withLock { calls.append("resume") } }
    }

    func testSuspending_suspendsOnceOverTheLimit_andResumesAtHalfOfIt() {
        let task = RecordingTask()
        let backlog = StreamBacklog(
            SlowSubscriberPolicy(bufferLimit: 100, longestHold: nil), holding: .bySuspending(task))
        XCTAssertNil(backlog.add(60))
        XCTAssertNil(backlog.add(40))
        XCTAssertEqual(task.log, [], "at the limit, nothing is held back")
        XCTAssertNil(backlog.add(30), "suspending never makes URLSession's queue wait")
        XCTAssertNil(backlog.add(30))
        XCTAssertEqual(task.log, ["suspend"], "suspended once, however many chunks still arrive")

        backlog.delivered(60)  // 100 waiting: still above half the limit
        XCTAssertEqual(task.log, ["suspend"])
        backlog.delivered(40)  // 60
        XCTAssertEqual(task.log, ["suspend"])
        backlog.delivered(30)  // 30
        XCTAssertEqual(task.log, ["suspend", "resume"])
        backlog.delivered(30)
        XCTAssertEqual(task.log, ["suspend", "resume"], "resumed once")

        XCTAssertNil(backlog.add(101))
        XCTAssertEqual(task.log, ["suspend", "resume", "suspend"], "held back again")
    }

    func testSuspending_aSubscriberThatTakesNothingForTheLongestHold_endsTheStream() {
        let task = RecordingTask()
        let backlog = StreamBacklog(
            SlowSubscriberPolicy(bufferLimit: 10, longestHold: 0.05), holding: .bySuspending(task))
        let overflow = expectation(description: "overflow")
        let reported = PipelineBox<Int?>(nil)
        backlog.whenSuspendedTooLong { bytes in
            reported.value = bytes
            overflow.fulfill()
        }
        XCTAssertNil(backlog.add(25))
        wait(for: [overflow], timeout: 5)
        XCTAssertEqual(reported.value, 25)
        backlog.delivered(25)
        XCTAssertEqual(task.log, ["suspend"], "an ended stream is not resumed")
    }

    func testSuspending_progressWithinTheHold_startsItOver() {
        let task = RecordingTask()
        let backlog = StreamBacklog(
            SlowSubscriberPolicy(bufferLimit: 10, longestHold: 0.2), holding: .bySuspending(task))
        let overflow = expectation(description: "overflow")
        backlog.whenSuspendedTooLong { _ in overflow.fulfill() }
        XCTAssertNil(backlog.add(30))
        // The subscriber takes a chunk, not enough to resume, then nothing more: the hold
        // counts again from the check that saw the progress, so it ends later, not never.
        backlog.delivered(10)
        wait(for: [overflow], timeout: 5)
        XCTAssertEqual(task.log, ["suspend"])
    }

    func testSuspending_closed_neitherResumesNorOverflows() {
        let task = RecordingTask()
        let backlog = StreamBacklog(
            SlowSubscriberPolicy(bufferLimit: 10, longestHold: 0.05), holding: .bySuspending(task))
        let overflow = expectation(description: "no overflow")
        overflow.isInverted = true
        backlog.whenSuspendedTooLong { _ in overflow.fulfill() }
        XCTAssertNil(backlog.add(30))
        backlog.close()
        backlog.delivered(30)
        wait(for: [overflow], timeout: 0.3)
        XCTAssertEqual(task.log, ["suspend"])
    }

    func testWaiting_aSubscriberThatTakesNothingForTheLongestHold_overflowsInAdd() {
        let backlog = StreamBacklog(SlowSubscriberPolicy(bufferLimit: 10, longestHold: 0.05), holding: .byWaiting)
        XCTAssertNil(backlog.add(10))
        XCTAssertEqual(backlog.add(5), 15, "URLSession's queue waited the longest hold, then the stream ends")
    }

    /// Chunks the pipeline kept (handed on, but not to the subscriber: see `StreamPacing`)
    /// still wait, and their hand-off is no progress: the hold still ends the stream.
    func testWaiting_chunksThePipelineKept_stillWait_andTheirHandOffIsNoProgress() {
        let backlog = StreamBacklog(SlowSubscriberPolicy(bufferLimit: 20, longestHold: 0.05), holding: .byWaiting)
        // The transport's hand-off of each chunk: added, handed on, kept, counted as delivered.
        for _ in 0..<3 {
            XCTAssertNil(backlog.add(5))
            backlog.kept(5)
            backlog.delivered(5)
        }
        XCTAssertEqual(backlog.add(10), 25, "the kept 15 bytes and this chunk's 10 wait: the stream ends")
    }

    func testWaiting_keptChunksHandedOn_makeRoom() {
        let backlog = StreamBacklog(SlowSubscriberPolicy(bufferLimit: 10, longestHold: 5), holding: .byWaiting)
        XCTAssertNil(backlog.add(8))
        backlog.kept(8)
        backlog.delivered(8)
        backlog.handedOn(8)
        XCTAssertNil(backlog.add(8), "the subscriber took the kept chunk: no wait")
    }
}
