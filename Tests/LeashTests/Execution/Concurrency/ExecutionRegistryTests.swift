import Dispatch
import Foundation
import LeashTestSupport
import XCTest

@testable import Leash

/// `ExecutionRegistry`, the executions `cancelAll()` reaches: added until removed, out of
/// reach while settled (delivering their final value) and back after `unsettle`, and a
/// settle racing `cancelAll()` has exactly one winner.
final class ExecutionRegistryTests: XCTestCase {
    /// An execution that counts the cancels it is sent, and may run something when it is.
    private final class Listed: ManagedExecution, @unchecked Sendable {
        // @unchecked: the count is locked; `onCancel` is set before the execution is listed.
        private let cancels = SpecLocked(0)
        var onCancel: (() -> Void)?

        var registryKey: ObjectIdentifier { ObjectIdentifier(self) }

        func cancelFromManager() {
            cancels.withLock { $0 += 1 }
            onCancel?()
        }

        var cancelCount: Int { cancels.value }
    }

    func testCancelAll_cancelsEachListedExecutionOnce_andForgetsThem() {
        let registry = ExecutionRegistry()
        let executions = [Listed(), Listed(), Listed()]
        for execution in executions { registry.add(execution) }
        XCTAssertEqual(registry.count, 3)

        registry.cancelAll()
        registry.cancelAll()

        XCTAssertEqual(executions.map(\.cancelCount), [1, 1, 1])
        XCTAssertEqual(registry.count, 0)
    }

    func testRemoved_isNotCancelled_andRemovingTwiceDoesNothing() {
        let registry = ExecutionRegistry()
        let removed = Listed()
        let kept = Listed()
        registry.add(removed)
        registry.add(kept)
        registry.remove(removed)
        registry.remove(removed)
        XCTAssertEqual(registry.count, 1)

        registry.cancelAll()

        XCTAssertEqual(removed.cancelCount, 0)
        XCTAssertEqual(kept.cancelCount, 1)
    }

    func testSettled_isOutOfCancelAllsReach_butStillCounted_untilRemoved() {
        let registry = ExecutionRegistry()
        let execution = Listed()
        registry.add(execution)

        XCTAssertTrue(registry.settle(execution.registryKey))
        XCTAssertTrue(registry.settle(execution.registryKey), "settling twice is still settled")
        registry.cancelAll()

        XCTAssertEqual(execution.cancelCount, 0, "a settled execution delivers its value instead")
        XCTAssertEqual(registry.count, 1)
        registry.remove(execution)
        XCTAssertEqual(registry.count, 0)
    }

    func testUnsettled_isInCancelAllsReachAgain() {
        let registry = ExecutionRegistry()
        let execution = Listed()
        registry.add(execution)
        XCTAssertTrue(registry.settle(execution.registryKey))

        registry.unsettle(execution.registryKey)
        registry.cancelAll()

        XCTAssertEqual(execution.cancelCount, 1)
        XCTAssertEqual(registry.count, 0)
    }

    func testSettleAfterCancelAll_orOfAnExecutionNotListed_fails() {
        let registry = ExecutionRegistry()
        let cancelled = Listed()
        registry.add(cancelled)
        registry.cancelAll()
        XCTAssertFalse(registry.settle(cancelled.registryKey), "the cancel ends it: the value must not be delivered")
        XCTAssertFalse(registry.settle(Listed().registryKey))
        registry.unsettle(cancelled.registryKey)
        XCTAssertEqual(registry.count, 0, "unsettling what is not settled does nothing")
    }

    func testExecutionAddedWhileCancelAllRuns_isNotCancelled() {
        let registry = ExecutionRegistry()
        let first = Listed()
        let startedMeanwhile = Listed()
        first.onCancel = { registry.add(startedMeanwhile) }
        registry.add(first)

        registry.cancelAll()

        XCTAssertEqual(first.cancelCount, 1)
        XCTAssertEqual(startedMeanwhile.cancelCount, 0, "it started after cancelAll()")
        XCTAssertEqual(registry.count, 1)
        registry.remove(startedMeanwhile)
    }

    func testSettleRacingCancelAll_onManyThreads_exactlyOneWinsForEachExecution() {
        let registry = ExecutionRegistry()
        let executions = (0..<2_000).map { _ in Listed() }
        for execution in executions { registry.add(execution) }
        let settled = SpecLocked<Set<ObjectIdentifier>>([])

        DispatchQueue.concurrentPerform(iterations: executions.count) { index in
            if index % 100 == 0 { registry.cancelAll() }
            let key = executions[index].registryKey
            if registry.settle(key) { settled.withLock { _ = $0.insert(key) } }
        }
        registry.cancelAll()

        let bothOrNeither = executions.filter { execution in
            let wasSettled = settled.value.contains(execution.registryKey)
            return execution.cancelCount != (wasSettled ? 0 : 1)
        }
        XCTAssertEqual(bothOrNeither.count, 0, "settled and cancelled, or neither")
        XCTAssertEqual(registry.count, settled.value.count, "only the settled ones are still listed")
        for execution in executions { registry.remove(execution) }
        XCTAssertEqual(registry.count, 0)
    }
}
