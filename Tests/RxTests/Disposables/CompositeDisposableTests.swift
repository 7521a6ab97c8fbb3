import Rx
import RxTesting
import XCTest

final class CompositeDisposableTests: RxTestCase {
    func testInit_emptyGroup() {
        let group = CompositeDisposable()
        XCTAssertEqual(group.count, 0)
        XCTAssertFalse(group.isDisposed)
    }

    func testInitTwoAndThree_holdTheirMembers() {
        XCTAssertEqual(CompositeDisposable(SpyDisposable(), SpyDisposable()).count, 2)
        XCTAssertEqual(CompositeDisposable(SpyDisposable(), SpyDisposable(), SpyDisposable()).count, 3)
    }

    func testInitVariadicAndArray_holdTheirMembers() {
        let members = (0..<5).map { _ in SpyDisposable() }
        XCTAssertEqual(CompositeDisposable(members[0], members[1], members[2], members[3], members[4]).count, 5)
        XCTAssertEqual(CompositeDisposable(disposables: members).count, 5)
    }

    func testInsert_returnsDistinctKeysAndCounts() {
        let group = CompositeDisposable()
        let first = group.insert(SpyDisposable())
        let second = group.insert(SpyDisposable())
        XCTAssertNotNil(first)
        XCTAssertNotNil(second)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(group.count, 2)
    }

    func testRemove_disposesThatMemberOnlyOnce() {
        let group = CompositeDisposable()
        let kept = SpyDisposable()
        let removed = SpyDisposable()
        group.insert(kept)
        let key = group.insert(removed)!
        group.remove(for: key)
        group.remove(for: key)
        XCTAssertEqual(removed.disposeCount, 1)
        XCTAssertEqual(kept.disposeCount, 0)
        XCTAssertEqual(group.count, 1)
        group.dispose()
        XCTAssertEqual(removed.disposeCount, 1)
        XCTAssertEqual(kept.disposeCount, 1)
    }

    func testDispose_disposesEveryMemberOnceInInsertionOrder() {
        let log = SpyDisposalLog()
        let group = CompositeDisposable()
        for name in ["a", "b", "c", "d"] { group.insert(SpyDisposable(name, log: log)) }
        group.dispose()
        group.dispose()
        XCTAssertTrue(group.isDisposed)
        XCTAssertEqual(group.count, 0)
        XCTAssertEqual(log.all, ["a", "b", "c", "d"])
    }

    func testInsertAfterDispose_disposesAtOnceAndReturnsNil() {
        let group = CompositeDisposable()
        group.dispose()
        let late = SpyDisposable()
        XCTAssertNil(group.insert(late))
        XCTAssertEqual(late.disposeCount, 1)
        XCTAssertEqual(group.count, 0)
    }

    func testRemoveAfterDispose_doesNothing() {
        let group = CompositeDisposable()
        let member = SpyDisposable()
        let key = group.insert(member)!
        group.dispose()
        group.remove(for: key)
        XCTAssertEqual(member.disposeCount, 1)
    }

    func testMemberDisposingTheGroupDuringDispose_doesNotDeadlock() {
        let group = CompositeDisposable()
        let other = SpyDisposable()
        group.insert(Disposables.create { group.dispose() })
        group.insert(other)
        group.dispose()
        XCTAssertEqual(other.disposeCount, 1)
    }
}
