import Rx
import RxTesting
import XCTest

final class BooleanDisposableTests: RxTestCase {
    func testInit_startsNotDisposed() {
        XCTAssertFalse(BooleanDisposable().isDisposed)
    }

    func testInitIsDisposed_startsInTheGivenState() {
        XCTAssertTrue(BooleanDisposable(isDisposed: true).isDisposed)
        XCTAssertFalse(BooleanDisposable(isDisposed: false).isDisposed)
    }

    func testDispose_setsIsDisposedForGood() {
        let disposable = BooleanDisposable()
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
        disposable.dispose()
        XCTAssertTrue(disposable.isDisposed)
    }

    func testBooleanDisposableTrue_isDisposed() {
        XCTAssertTrue(BooleanDisposable.booleanDisposableTrue.isDisposed)
    }
}
