import Rx
import RxTesting
import XCTest

/// Base class for Rx tests: checks that each test releases every Rx resource it created.
class RxTestCase: XCTestCase {
    private var resourcesAtStart: Int32 = 0

    override func setUp() {
        super.setUp()
        resourcesAtStart = Resources.total
    }

    override func tearDown() {
        // Objects freed on other threads may still be on their way out; wait briefly for
        // the count to settle rather than flake.
        let deadline = Date().addingTimeInterval(2)
        while Resources.total != resourcesAtStart && Date() < deadline {
            RunLoop.current.run(until: Date().addingTimeInterval(0.005))
        }
        XCTAssertEqual(Resources.total, resourcesAtStart, "Rx resources leaked by this test")
        super.tearDown()
    }
}

/// An error for tests.
struct TestError: Error, Equatable, CustomStringConvertible {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
    var description: String { "TestError(\(id))" }
}

let testError = TestError(1)
let testError2 = TestError(2)
