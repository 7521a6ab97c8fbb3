import Foundation
import Rx
import RxTesting
import XCTest

final class CurrentThreadSchedulerTests: RxTestCase {
    func testIsScheduleRequired_trueOutsideAndFalseInsideAnAction() {
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
        let inside = Flags()
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            inside.values.append(CurrentThreadScheduler.isScheduleRequired)
            return Disposables.create()
        }
        XCTAssertEqual(inside.values, [false])
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
    }

    func testSchedule_runsAtOnceWhenNothingIsRunning() {
        let log = Log()
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            log.append("action")
            return Disposables.create()
        }
        log.append("after")
        XCTAssertEqual(log.entries, ["action", "after"])
    }

    func testSchedule_passesTheState() {
        let log = Log()
        _ = CurrentThreadScheduler.instance.schedule("state") { state in
            log.append(state)
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, ["state"])
    }

    func testNestedSchedule_runsAfterTheCurrentActionInFIFOOrder() {
        let log = Log()
        let scheduler = CurrentThreadScheduler.instance
        _ = scheduler.schedule(()) { _ in
            log.append("outer start")
            _ = scheduler.schedule(()) { _ in
                log.append("A")
                _ = scheduler.schedule(()) { _ in
                    log.append("C")
                    return Disposables.create()
                }
                return Disposables.create()
            }
            _ = scheduler.schedule(()) { _ in
                log.append("B")
                return Disposables.create()
            }
            log.append("outer end")
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, ["outer start", "outer end", "A", "B", "C"])
    }

    func testNestedSchedule_drainsBeforeTheOuterScheduleReturns() {
        let log = Log()
        let scheduler = CurrentThreadScheduler.instance
        _ = scheduler.schedule(()) { _ in
            _ = scheduler.schedule(()) { _ in
                log.append("inner")
                return Disposables.create()
            }
            return Disposables.create()
        }
        log.append("returned")
        XCTAssertEqual(log.entries, ["inner", "returned"])
    }

    func testDisposingAQueuedAction_cancelsIt() {
        let log = Log()
        let scheduler = CurrentThreadScheduler.instance
        _ = scheduler.schedule(()) { _ in
            let cancelled = scheduler.schedule(()) { _ in
                log.append("cancelled ran")
                return Disposables.create()
            }
            _ = scheduler.schedule(()) { _ in
                log.append("kept")
                return Disposables.create()
            }
            cancelled.dispose()
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, ["kept"])
    }

    func testQueuedActionCanCancelALaterOne() {
        let log = Log()
        let scheduler = CurrentThreadScheduler.instance
        _ = scheduler.schedule(()) { _ in
            let holder = DisposableSlot()
            _ = scheduler.schedule(()) { _ in
                log.append("first")
                holder.disposable?.dispose()
                return Disposables.create()
            }
            holder.disposable = scheduler.schedule(()) { _ in
                log.append("second")
                return Disposables.create()
            }
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, ["first"])
    }

    func testSchedule_returnsTheActionsDisposableWhenRunAtOnce() {
        let inner = BooleanDisposable()
        let returned = CurrentThreadScheduler.instance.schedule(()) { _ in inner }
        XCTAssertTrue((returned as? BooleanDisposable) === inner)
    }

    func testEachThreadHasItsOwnTrampoline() {
        let log = Log()
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                // No trampoline runs on this new thread: the action runs at once.
                let required = CurrentThreadScheduler.isScheduleRequired
                _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                    log.append("other thread, required \(required)")
                    return Disposables.create()
                }
                done.signal()
            }
            done.wait()
            log.append("outer")
            return Disposables.create()
        }
        XCTAssertEqual(log.entries, ["other thread, required true", "outer"])
    }

    func testSubscribe_synchronousSourceStartsOnlyAfterTheChainIsWired() {
        // `from` on the trampoline lets a handler dispose the subscription it belongs to.
        let holder = DisposableSlot()
        let received = Log()
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            holder.disposable = Observable.from(0..<1_000).map { $0 * 2 }.subscribe(onNext: { value in
                received.append("\(value)")
                if value == 4 { holder.disposable?.dispose() }
            })
            return Disposables.create()
        }
        XCTAssertEqual(received.entries, ["0", "2", "4"])
        holder.disposable = nil
    }

    func testDeepRecursion_doesNotGrowTheStack() {
        let count = Counter()
        let scheduler = CurrentThreadScheduler.instance
        _ = scheduler.scheduleRecursive(0) { value, recurse in
            count.value += 1
            if value < 30_000 { recurse(value + 1) }
        }
        XCTAssertEqual(count.value, 30_001)
    }
}

private final class Log: @unchecked Sendable {
    // Sendable: entries are behind `lock` (one test appends from a second thread).
    private let lock = NSLock()
    private var storage: [String] = []

    var entries: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    func append(_ entry: String) {
        lock.lock()
        storage.append(entry)
        lock.unlock()
    }
}

private final class Flags: @unchecked Sendable {
    // Only touched on the thread running the test.
    var values: [Bool] = []
}

private final class Counter: @unchecked Sendable {
    // Only touched on the thread running the test.
    var value = 0
}

private final class DisposableSlot: @unchecked Sendable {
    // Only touched on the thread running the test.
    var disposable: Disposable?
}
