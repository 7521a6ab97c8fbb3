import RxLeash
import RxTesting
import XCTest

final class RxLeashModuleTests: XCTestCase {
    func testReExportsLeashAndRx() {
        let method: HTTPMethod = .get
        XCTAssertEqual(method.rawValue, "GET")
        XCTAssertEqual(try Observable.just(1).toArray().toBlocking().single(), [1])
    }
}
