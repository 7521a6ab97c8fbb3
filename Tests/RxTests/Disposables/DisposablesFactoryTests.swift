import Foundation
import Rx
import RxTesting
import XCTest

final class DisposablesFactoryTests: RxTestCase {
    func testCreate_nopDisposableDoesNothing() {
        let disposable = Disposables.create()
        disposable.dispose()
        disposable.dispose()
    }

    func testCreateWith_runsActionOnFirstDisposeOnly() {
        var calls = 0
        let box = ActionCounter { calls += 1 }
        let disposable = Disposables.create { box.run() }
        XCTAssertFalse(disposable.isDisposed)
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
        disposable.dispose()
        XCTAssertEqual(calls, 1)
    }

    func testCreateWith_releasesTheActionOnDispose() {
        weak var weakTarget: ActionCounter?
        let disposable: Cancelable
        do {
            let target = ActionCounter {}
            weakTarget = target
            disposable = Disposables.create { target.run() }
        }
        XCTAssertNotNil(weakTarget)
        disposable.dispose()
        XCTAssertNil(weakTarget)
    }

    func testCreateBinary_disposesBothOnce() {
        let first = SpyDisposable()
        let second = SpyDisposable()
        let disposable = Disposables.create(first, second)
        XCTAssertFalse(disposable.isDisposed)
        disposable.dispose()
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
        XCTAssertEqual(first.disposeCount, 1)
        XCTAssertEqual(second.disposeCount, 1)
    }

    func testCreateThree_disposesAllOnceInOrder() {
        let log = SpyDisposalLog()
        let members = ["a", "b", "c"].map { SpyDisposable($0, log: log) }
        let disposable = Disposables.create(members[0], members[1], members[2])
        disposable.dispose()
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
        XCTAssertEqual(log.all, ["a", "b", "c"])
    }

    func testCreateVariadic_disposesAllOnceInOrder() {
        let log = SpyDisposalLog()
        let members = ["a", "b", "c", "d", "e"].map { SpyDisposable($0, log: log) }
        let disposable = Disposables.create(members[0], members[1], members[2], members[3], members[4])
        disposable.dispose()
        disposable.dispose()
        XCTAssertEqual(log.all, ["a", "b", "c", "d", "e"])
    }

    func testCreateArray_disposesAllOnceForAnyCount() {
        for count in 0...5 {
            let members = (0..<count).map { _ in SpyDisposable() }
            let disposable = Disposables.create(members)
            XCTAssertFalse(disposable.isDisposed, "count \(count)")
            disposable.dispose()
            disposable.dispose()
            XCTAssertTrue(disposable.isDisposed, "count \(count)")
            XCTAssertEqual(members.map(\.disposeCount), Array(repeating: 1, count: count), "count \(count)")
        }
    }

    func testCreateWith_concurrentDisposeRunsActionExactlyOnce() {
        for _ in 0..<200 {
            let calls = SpyDisposable()
            let disposable = Disposables.create { calls.dispose() }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in disposable.dispose() }
            XCTAssertEqual(calls.disposeCount, 1)
        }
    }

    func testDisposedBy_addsToTheBag() {
        let member = SpyDisposable()
        var bag: DisposeBag? = DisposeBag()
        member.disposed(by: bag!)
        XCTAssertEqual(member.disposeCount, 0)
        bag = nil
        XCTAssertEqual(member.disposeCount, 1)
    }
}

/// Counts runs of a closure run on the test's thread.
private final class ActionCounter: @unchecked Sendable {
    // Only run on the thread running the test.
    private let action: () -> Void

    init(_ action: @escaping () -> Void) {
        self.action = action
    }

    func run() { action() }
}
