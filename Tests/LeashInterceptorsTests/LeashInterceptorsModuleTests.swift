import LeashInterceptors
import XCTest

final class LeashInterceptorsModuleTests: XCTestCase {
    func testReExportsLeash() {
        XCTAssertEqual(HTTPMethod.post.rawValue, "POST")
    }
}
