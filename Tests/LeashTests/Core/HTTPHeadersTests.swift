import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class HTTPHeadersTests: XCTestCase {
    // MARK: Look-ups

    func testSubscript_findsANameInAnyCase() {
        let headers: HTTPHeaders = ["content-type": "application/json", "X-Custom": "1"]
        XCTAssertEqual(headers["Content-Type"], "application/json")
        XCTAssertEqual(headers["CONTENT-TYPE"], "application/json")
        XCTAssertEqual(headers["x-custom"], "1")
        XCTAssertNil(headers["Content-Length"])
        XCTAssertNil(headers["content-typ"], "a prefix is another name")
    }

    func testSubscript_comparesOnlyASCIILettersWithoutCase() {
        let headers: HTTPHeaders = ["X-Ä": "umlaut", "a_b": "underscore"]
        XCTAssertEqual(headers["x-Ä"], "umlaut")
        XCTAssertNil(headers["X-ä"], "non-ASCII bytes compare exactly")
        XCTAssertNil(headers["A-B"], "`_` is not a lower-case `-`")
        XCTAssertEqual(headers["A_B"], "underscore")
    }

    func testSet_inAnotherCase_replacesTheFieldInPlace_withTheNewSpelling() {
        var headers: HTTPHeaders = ["Accept": "text/plain", "X-Other": "1"]
        headers["accept"] = "application/json"
        XCTAssertEqual(headers.count, 2, "one field, not one per spelling")
        XCTAssertEqual(headers["ACCEPT"], "application/json")
        XCTAssertEqual(headers.map(\.name), ["accept", "X-Other"], "the new spelling, in the old place")
    }

    func testSet_newName_appends_andNilRemovesInAnyCase() {
        var headers = HTTPHeaders()
        XCTAssertTrue(headers.isEmpty)
        headers["X-One"] = "1"
        headers["X-Two"] = "2"
        XCTAssertEqual(headers.map(\.name), ["X-One", "X-Two"])
        headers["x-one"] = nil
        XCTAssertEqual(headers.map(\.name), ["X-Two"])
        headers["X-Missing"] = nil
        XCTAssertEqual(headers.count, 1)
    }

    // MARK: Creation and views

    func testLiteral_keepsTheOrderWritten_andARepeatedNameKeepsItsLastValue() {
        let headers: HTTPHeaders = ["B": "2", "a": "1", "C": "3", "b": "two"]
        XCTAssertEqual(headers.map(\.name), ["b", "a", "C"])
        XCTAssertEqual(headers.map(\.value), ["two", "1", "3"])
    }

    func testIteration_givesNamesAsSent_inOrder() {
        let headers: HTTPHeaders = ["location": "/next", "X-Request-ID": "42", "etag": "\"v1\""]
        var seen: [String] = []
        for (name, value) in headers { seen.append("\(name)=\(value)") }
        XCTAssertEqual(seen, ["location=/next", "X-Request-ID=42", "etag=\"v1\""])
        XCTAssertEqual(headers.underestimatedCount, 3)
    }

    func testDictionary_roundTrips_withNamesAsSent() {
        let dictionary = ["content-type": "text/plain", "X-Custom": "1"]
        let headers = HTTPHeaders(dictionary)
        XCTAssertEqual(headers.dictionary, dictionary)
        XCTAssertEqual(headers["Content-Type"], "text/plain")
    }

    func testInitFromDictionary_namesDifferingOnlyInCase_becomeOneField() {
        let headers = HTTPHeaders(["Accept": "a", "accept": "b"])
        XCTAssertEqual(headers.count, 1)
        XCTAssertNotNil(headers["ACCEPT"])
    }

    func testInitFromHTTPURLResponse_readsEveryField_inAnyCase() throws {
        let response = try XCTUnwrap(
            HTTPURLResponse(
                url: URL(string: "https://example.com/x")!, statusCode: 201, httpVersion: "HTTP/2",
                headerFields: ["location": "/items/7", "x-custom": "yes", "Content-Type": "application/json"]))
        let headers = HTTPHeaders(response)
        XCTAssertEqual(headers.count, 3)
        XCTAssertEqual(headers["Location"], "/items/7")
        XCTAssertEqual(headers["X-Custom"], "yes")
        XCTAssertEqual(headers["content-type"], "application/json")
        XCTAssertEqual(ResponseExtra(source: .network, httpResponse: response).headers, headers)
    }

    func testDescription_readsAsADictionaryLiteral() {
        XCTAssertEqual(HTTPHeaders().description, "[:]")
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Quote": "a\"b"]
        XCTAssertEqual(headers.description, #"["Content-Type": "text/plain", "X-Quote": "a\"b"]"#)
    }

    // MARK: Equality, hashing, coding

    func testEquality_ignoresNameCaseAndOrder_butNotValues() {
        let left: HTTPHeaders = ["Content-Type": "text/plain", "X-Custom": "1"]
        XCTAssertEqual(left, ["x-custom": "1", "content-type": "text/plain"])
        XCTAssertNotEqual(left, ["Content-Type": "TEXT/PLAIN", "X-Custom": "1"], "values compare exactly")
        XCTAssertNotEqual(left, ["Content-Type": "text/plain"])
        XCTAssertNotEqual(left, ["Content-Type": "text/plain", "X-Other": "1"])
    }

    func testHash_agreesWithEquality() {
        let left: HTTPHeaders = ["Content-Type": "text/plain", "X-Custom": "1"]
        let right: HTTPHeaders = ["x-custom": "1", "CONTENT-TYPE": "text/plain"]
        XCTAssertEqual(left.hashValue, right.hashValue)
        XCTAssertEqual(Set([left, right]).count, 1)
        XCTAssertEqual(Set([left, ["Content-Type": "text/html", "X-Custom": "1"]]).count, 2)
    }

    func testCodable_isAnObjectOfNamesAndValues() throws {
        let headers: HTTPHeaders = ["Content-Type": "text/plain", "x-custom": "1"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = try encoder.encode(headers)
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"Content-Type":"text\/plain","x-custom":"1"}"#)
        XCTAssertEqual(try JSONDecoder().decode(HTTPHeaders.self, from: json), headers)
    }
}
