import Rx
import RxTesting
import XCTest

final class RefCountAndScheduledDisposableTests: RxTestCase {
    func testRefCount_withNothingRetained_disposesAtOnce_once() {
        let spy = SpyDisposable()
        let refCount = RefCountDisposable(disposable: spy)
        refCount.dispose()
        refCount.dispose()
        XCTAssertEqual(spy.disposeCount, 1)
        XCTAssertTrue(refCount.isDisposed)
    }

    func testRefCount_waitsForEveryRetainedDisposable() {
        let spy = SpyDisposable()
        let refCount = RefCountDisposable(disposable: spy)
        let first = refCount.retain()
        let second = refCount.retain()

        refCount.dispose()
        XCTAssertEqual(spy.disposeCount, 0, "two users still hold it")
        first.dispose()
        first.dispose()
        XCTAssertEqual(spy.disposeCount, 0, "a retained disposable counts once")
        second.dispose()
        XCTAssertEqual(spy.disposeCount, 1)
        XCTAssertTrue(refCount.isDisposed)
    }

    func testRefCount_retainedDisposablesAlone_neverDisposeTheUnderlyingOne() {
        let spy = SpyDisposable()
        let refCount = RefCountDisposable(disposable: spy)
        refCount.retain().dispose()
        XCTAssertEqual(spy.disposeCount, 0, "the primary was not disposed")
        XCTAssertFalse(refCount.isDisposed)
    }

    func testRefCount_retainAfterTheEnd_isANoOp() {
        let spy = SpyDisposable()
        let refCount = RefCountDisposable(disposable: spy)
        refCount.dispose()
        refCount.retain().dispose()
        XCTAssertEqual(spy.disposeCount, 1)
    }

    func testRefCount_concurrentRetainsAndReleases_disposeExactlyOnce() {
        let spy = SpyDisposable()
        let refCount = RefCountDisposable(disposable: spy)
        let keep = refCount.retain()
        DispatchQueue.concurrentPerform(iterations: 1_000) { _ in refCount.retain().dispose() }
        refCount.dispose()
        XCTAssertEqual(spy.disposeCount, 0)
        keep.dispose()
        XCTAssertEqual(spy.disposeCount, 1)
    }

    func testScheduled_disposesOnItsScheduler_once() {
        let scheduler = TestScheduler(initialClock: 0)
        let spy = SpyDisposable()
        let scheduled = ScheduledDisposable(scheduler: scheduler, disposable: spy)
        scheduler.scheduleAt(100) {
            scheduled.dispose()
            scheduled.dispose()
        }
        scheduler.scheduleAt(100) { XCTAssertEqual(spy.disposeCount, 0, "not in place: on the scheduler") }
        scheduler.start()
        XCTAssertEqual(spy.disposeCount, 1)
        XCTAssertTrue(scheduled.isDisposed)
    }

    func testDisposeBag_builder_holdsEveryLine_branchesAndLoops() {
        let spies = (0..<5).map { SpyDisposable("\($0)") }
        let includeOptional = true
        var bag: DisposeBag? = DisposeBag {
            spies[0]
            if includeOptional { spies[1] }
            if !includeOptional { SpyDisposable() } else { spies[2] }
        }
        bag?.insert {
            for spy in spies[3...] { spy }
        }
        XCTAssertEqual(spies.map(\.disposeCount), [0, 0, 0, 0, 0])
        bag = nil
        XCTAssertEqual(spies.map(\.disposeCount), [1, 1, 1, 1, 1])
        _ = bag
    }
}
