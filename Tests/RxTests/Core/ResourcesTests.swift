import Rx
import XCTest

/// `Resources`: the live-resource count that custom operators may take part in.
final class ResourcesTests: RxTestCase {
    func testIncrementAndDecrementTotal_returnTheNewCount() {
        let before = Resources.total
        let incremented: Int32 = Resources.incrementTotal()
        XCTAssertEqual(incremented, before + 1)
        XCTAssertEqual(Resources.total, before + 1)
        let decremented: Int32 = Resources.decrementTotal()
        XCTAssertEqual(decremented, before)
        XCTAssertEqual(Resources.total, before)
    }

    func testIncrementAndDecrementTotal_canIgnoreTheResult() {
        let before = Resources.total
        Resources.incrementTotal()
        Resources.incrementTotal()
        XCTAssertEqual(Resources.total, before + 2)
        Resources.decrementTotal()
        Resources.decrementTotal()
        XCTAssertEqual(Resources.total, before)
    }
}
