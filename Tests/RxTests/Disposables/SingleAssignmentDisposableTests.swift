import Rx
import RxTesting
import XCTest

final class SingleAssignmentDisposableTests: RxTestCase {
    func testSetThenDispose_disposesTheUnderlyingOnce() {
        let single = SingleAssignmentDisposable()
        let underlying = SpyDisposable()
        single.setDisposable(underlying)
        XCTAssertFalse(single.isDisposed)
        XCTAssertEqual(underlying.disposeCount, 0)
        single.dispose()
        single.dispose()
        XCTAssertTrue(single.isDisposed)
        XCTAssertEqual(underlying.disposeCount, 1)
    }

    func testDisposeThenSet_disposesTheUnderlyingAtOnce() {
        let single = SingleAssignmentDisposable()
        single.dispose()
        XCTAssertTrue(single.isDisposed)
        let underlying = SpyDisposable()
        single.setDisposable(underlying)
        XCTAssertEqual(underlying.disposeCount, 1)
    }

    func testSecondSet_disposesTheSecondAndKeepsTheFirst() {
        let single = SingleAssignmentDisposable()
        let first = SpyDisposable()
        let second = SpyDisposable()
        single.setDisposable(first)
        single.setDisposable(second)
        XCTAssertEqual(first.disposeCount, 0)
        XCTAssertEqual(second.disposeCount, 1)
        single.dispose()
        XCTAssertEqual(first.disposeCount, 1)
        XCTAssertEqual(second.disposeCount, 1)
    }

    func testDispose_releasesTheUnderlying() {
        let single = SingleAssignmentDisposable()
        weak var weakUnderlying: SpyDisposable?
        do {
            let underlying = SpyDisposable()
            weakUnderlying = underlying
            single.setDisposable(underlying)
        }
        XCTAssertNotNil(weakUnderlying)
        single.dispose()
        XCTAssertNil(weakUnderlying)
    }
}
