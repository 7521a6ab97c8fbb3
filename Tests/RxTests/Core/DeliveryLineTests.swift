import Dispatch
import Foundation
import Rx
import XCTest

/// The one serial-delivery primitive: items from many threads reach the target one at a
/// time, each thread's in its order, none after the line closed, and the target is let go
/// exactly once, after its last item.
final class DeliveryLineTests: XCTestCase {
    /// A line's owner that records what its target receives and checks it is never called
    /// concurrently.
    private final class Owner: @unchecked Sendable {
        let line = LockedState(DeliveryLine<Int>())
        private let record = LockedState<[Int]>([])
        private let inside = AtomicInt(0)
        private let overlaps = AtomicInt(0)
        let releases = AtomicInt(0)
        /// Called with each item as it is handed on (re-entrant submits, slow targets).
        var onItem: (@Sendable (Int) -> Void)?

        func submit(_ item: Int, closing: Bool = false) {
            line.deliver(item, closing: closing, hand: hand, release: release)
        }

        func hand(_ item: Int) {
            if inside.exchange(1) != 0 { overlaps.store(1) }
            record.withLock { $0.append(item) }
            onItem?(item)
            inside.store(0)
        }

        func release() {
            // Counted with an atomic exchange loop: two releases racing would both count.
            var seen = releases.load()
            while !releases.compareExchange(expected: seen, desired: seen + 1) { seen = releases.load() }
        }

        var delivered: [Int] { record.withLock { $0 } }
        var wasCalledConcurrently: Bool { overlaps.load() != 0 }
    }

    func testManyThreads_everyItemOnce_eachThreadsInOrder_neverConcurrently() {
        let owner = Owner()
        // A slow target makes submitters find it busy and queue.
        owner.onItem = { item in if item % 97 == 0 { usleep(50) } }
        let threads = 8
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread { owner.submit(thread * perThread + index) }
        }
        let delivered = owner.delivered
        XCTAssertEqual(delivered.count, threads * perThread)
        XCTAssertEqual(Set(delivered).count, threads * perThread, "each item once")
        XCTAssertFalse(owner.wasCalledConcurrently)
        for thread in 0..<threads {
            let own = delivered.filter { $0 / perThread == thread }
            XCTAssertEqual(own, own.sorted(), "thread \(thread)'s items in the order it submitted them")
        }
        XCTAssertEqual(owner.releases.load(), 0, "an open line keeps its target")
    }

    func testReentrantSubmit_isQueuedBehindTheItemBeingHanded() {
        let owner = Owner()
        owner.onItem = { [unowned owner] item in
            if item < 3 { owner.submit(item + 10) }
        }
        owner.submit(1)
        owner.submit(2)
        XCTAssertEqual(owner.delivered, [1, 11, 2, 12])
        XCTAssertFalse(owner.wasCalledConcurrently)
    }

    func testClosingItem_isTheLast_andTheTargetIsLetGoOnceAfterIt() {
        let owner = Owner()
        owner.onItem = { [unowned owner] item in
            // Submitted while the closing item is handed on: dropped.
            if item == 2 { owner.submit(3) }
            XCTAssertEqual(owner.releases.load(), 0, "not let go before its last item")
        }
        owner.submit(1)
        owner.submit(2, closing: true)
        owner.submit(4)
        XCTAssertEqual(owner.delivered, [1, 2])
        XCTAssertEqual(owner.releases.load(), 1)
    }

    func testClose_afterTheClosingItemWasDelivered_doesNotLetTheTargetGoTwice() {
        let owner = Owner()
        owner.submit(1, closing: true)
        XCTAssertEqual(owner.releases.load(), 1, "let go after its last item")
        owner.line.close(release: owner.release)
        XCTAssertEqual(owner.releases.load(), 1, "a dispose after the end lets nothing go again")
    }

    func testCloseRacingTheLastItem_letsTheTargetGoExactlyOnce() {
        for _ in 0..<2_000 {
            let owner = Owner()
            owner.submit(0)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    owner.submit(1, closing: true)
                } else {
                    owner.line.close(release: owner.release)
                }
            }
            XCTAssertEqual(owner.releases.load(), 1)
        }
    }

    func testClose_whileIdle_letsTheTargetGoAtOnce_andDropsLaterItems() {
        let owner = Owner()
        owner.submit(1)
        owner.line.close(release: owner.release)
        owner.submit(2)
        XCTAssertEqual(owner.delivered, [1])
        XCTAssertEqual(owner.releases.load(), 1)
    }

    func testClose_whileDelivering_dropsWhatWaits_andTheDelivererLetsTheTargetGo() {
        let owner = Owner()
        let handing = DispatchSemaphore(value: 0)
        let closed = DispatchSemaphore(value: 0)
        owner.onItem = { item in
            guard item == 1 else { return }
            handing.signal()
            closed.wait()
        }
        let done = expectation(description: "the deliverer is done")
        DispatchQueue.global().async {
            owner.submit(1)
            done.fulfill()
        }
        handing.wait()
        owner.submit(2)  // waits behind item 1
        owner.line.close(release: owner.release)
        XCTAssertEqual(owner.releases.load(), 0, "the deliverer still holds the target")
        closed.signal()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(owner.delivered, [1], "what waited was dropped")
        XCTAssertEqual(owner.releases.load(), 1)
    }
    func testEvents_submittedWhileDelivering_comeInOrder_andNothingAfterAStopEvent() {
        var line = DeliveryLine<Event<Int>>()
        XCTAssertEqual(line.submit(.next(1))?.element, 1, "nobody delivers: the caller does")
        XCTAssertNil(line.submit(.next(2)), "queued for the deliverer")
        XCTAssertNil(line.submit(.completed))
        XCTAssertNil(line.submit(.next(3)), "after the stop event: dropped")
        XCTAssertEqual(line.next()?.element, 2)
        XCTAssertEqual(line.next()?.isCompleted, true)
        XCTAssertNil(line.next(), "idle")
        XCTAssertNil(line.submit(.next(4)), "closed for good")
        XCTAssertTrue(line.isClosed)
    }

    func testEvents_aClosedLine_dropsLaterEvents_butDeliversWhatWaits() {
        var line = DeliveryLine<Event<Int>>()
        XCTAssertNotNil(line.submit(.next(1)))
        XCTAssertNil(line.submit(.next(2)))
        // An operator that ends downstream itself closes the line without a stop event.
        line.isClosed = true
        XCTAssertNil(line.submit(.next(3)))
        XCTAssertEqual(line.next()?.element, 2, "submitted before the close: still delivered")
        XCTAssertNil(line.next())
        // Reused after draining: the queue's storage starts over.
        XCTAssertNil(line.submit(.next(5)))
    }
}
