import Rx
import RxTesting
import XCTest

final class SingleAssignmentDisposableTests: RxTestCase {
    func testSetThenDispose_disposesTheUnderlyingOnce() {
        let single = SingleAssignmentDisposable()
        let underlying = CountingDisposable()
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
        let underlying = CountingDisposable()
        single.setDisposable(underlying)
        XCTAssertEqual(underlying.disposeCount, 1)
    }

    func testSecondSet_disposesTheSecondAndKeepsTheFirst() {
        let single = SingleAssignmentDisposable()
        let first = CountingDisposable()
        let second = CountingDisposable()
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
        weak var weakUnderlying: CountingDisposable?
        do {
            let underlying = CountingDisposable()
            weakUnderlying = underlying
            single.setDisposable(underlying)
        }
        XCTAssertNotNil(weakUnderlying)
        single.dispose()
        XCTAssertNil(weakUnderlying)
    }
}
