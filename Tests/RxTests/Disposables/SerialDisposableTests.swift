import Rx
import RxTesting
import XCTest

final class SerialDisposableTests: RxTestCase {
    func testInit_startsEmptyAndNotDisposed() {
        let serial = SerialDisposable()
        XCTAssertFalse(serial.isDisposed)
        serial.disposable.dispose()
    }

    func testSettingDisposable_disposesThePreviousOne() {
        let serial = SerialDisposable()
        let first = SpyDisposable()
        let second = SpyDisposable()
        serial.disposable = first
        XCTAssertEqual(first.disposeCount, 0)
        serial.disposable = second
        XCTAssertEqual(first.disposeCount, 1)
        XCTAssertEqual(second.disposeCount, 0)
        XCTAssertTrue((serial.disposable as? SpyDisposable) === second)
        serial.dispose()
    }

    func testDispose_disposesTheCurrentOneOnce() {
        let serial = SerialDisposable()
        let current = SpyDisposable()
        serial.disposable = current
        serial.dispose()
        serial.dispose()
        XCTAssertTrue(serial.isDisposed)
        XCTAssertEqual(current.disposeCount, 1)
    }

    func testSettingAfterDispose_disposesTheNewOneAtOnce() {
        let serial = SerialDisposable()
        let first = SpyDisposable()
        serial.disposable = first
        serial.dispose()
        let late = SpyDisposable()
        serial.disposable = late
        XCTAssertEqual(late.disposeCount, 1)
        XCTAssertEqual(first.disposeCount, 1)
    }

    func testDisposeWithoutADisposable_isFine() {
        let serial = SerialDisposable()
        serial.dispose()
        XCTAssertTrue(serial.isDisposed)
    }
}
