import Foundation
import Leash
import LeashInterceptors
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class CacheKeyTests: XCTestCase {
    private func key(_ url: String, method: HTTPMethod = .get) throws -> CacheKey {
        CacheKey(method: method, url: try XCTUnwrap(URL(string: url)))
    }

    func testQueryOrder_doesNotChangeTheKey() throws {
        XCTAssertEqual(try key("https://h/x?b=2&a=1"), try key("https://h/x?a=1&b=2"))
        XCTAssertEqual(try key("https://h/x?b=2&a=1").stringValue, "GET https://h/x?a=1&b=2")
    }

    func testRepeatedNames_keepTheirOrder() throws {
        XCTAssertEqual(try key("https://h/x?id=2&a=0&id=1").query, "a=0&id=2&id=1")
        XCTAssertNotEqual(try key("https://h/x?id=2&id=1"), try key("https://h/x?id=1&id=2"))
    }

    func testMethodHostPortAndPath_areAllPartOfTheKey() throws {
        let base = try key("https://h:8080/x")
        XCTAssertNotEqual(base, try key("https://h:8080/x", method: .post))
        XCTAssertNotEqual(base, try key("https://h:8081/x"))
        XCTAssertNotEqual(base, try key("https://g:8080/x"))
        XCTAssertNotEqual(base, try key("https://h:8080/y"))
        XCTAssertEqual(base, try key("https://h:8080/x#fragment"))
    }

    func testItemsWithoutValues_andEncodedValues_areKept() throws {
        XCTAssertEqual(try key("https://h/x?flag&q=a%20b").query, "flag&q=a%20b")
    }

    func testFromRequest_usesItsMethod() throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: "https://h/x")))
        request.httpMethod = "delete"
        XCTAssertEqual(CacheKey(request: request)?.method, "DELETE")
    }
}
