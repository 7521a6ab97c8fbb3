import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct NotConvertible {}

/// `FormURLEncoded` parameters: an `application/x-www-form-urlencoded` body.
final class FormURLEncodedTests: XCTestCase {
    func testForm_sortedNestedAndArrays_withBracketsByDefault() throws {
        let form = FormURLEncoded(["user": ["name": "Ada", "age": 36], "tags": ["a", "b"], "q": "x"])
        let request = try specRequest(SpecEndpoint("/login", method: .post, parameters: form))
        XCTAssertEqual(
            specText(request.httpBody), "q=x&tags%5B%5D=a&tags%5B%5D=b&user%5Bage%5D=36&user%5Bname%5D=Ada")
        XCTAssertEqual(
            request.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
        XCTAssertNil(request.specEncodedQuery, "a body, not a query")
    }

    func testForm_arraysWithoutBrackets() throws {
        let request = try specRequest(SpecEndpoint("/f", method: .post, parameters: FormURLEncoded(["id": [3, 1]]))) {
            $0.arrayEncoding(.noBrackets)
        }
        XCTAssertEqual(specText(request.httpBody), "id=3&id=1")
    }

    func testForm_arraysWithIndexes() throws {
        let form = FormURLEncoded(["id": [3, 1], "rows": [["a": 1]]])
        let request = try specRequest(SpecEndpoint("/f", method: .post, parameters: form)) {
            $0.arrayEncoding(.indexInBrackets)
        }
        XCTAssertEqual(specText(request.httpBody), "id%5B0%5D=3&id%5B1%5D=1&rows%5B0%5D%5Ba%5D=1")
    }

    func testForm_bools_literalByDefaultAndNumericOnRequest() throws {
        let form = FormURLEncoded(["on": true, "off": false, "count": 1])
        let endpoint = SpecEndpoint("/f", method: .post, parameters: form)
        XCTAssertEqual(specText(try specRequest(endpoint).httpBody), "count=1&off=false&on=true")
        XCTAssertEqual(
            specText(try specRequest(endpoint) { $0.boolEncoding(.numeric) }.httpBody), "count=1&off=0&on=1")
    }

    func testForm_boolsFromJSONSerialization_areBoolsAndNumbersStayNumbers() throws {
        let json = try JSONSerialization.jsonObject(with: Data(#"{"on":true,"off":false,"one":1,"zero":0}"#.utf8))
        let fields = try XCTUnwrap(json as? [String: Any])
        let endpoint = SpecEndpoint("/f", method: .post, parameters: FormURLEncoded(fields))
        XCTAssertEqual(specText(try specRequest(endpoint).httpBody), "off=false&on=true&one=1&zero=0")
        XCTAssertEqual(
            specText(try specRequest(endpoint) { $0.boolEncoding(.numeric) }.httpBody), "off=0&on=1&one=1&zero=0")
    }

    func testForm_escapesReservedCharactersAndNonASCII() throws {
        let form = FormURLEncoded(["a&b=c": "1+1=2 & more", "name": "Zoë 😀"])
        let request = try specRequest(SpecEndpoint("/f", method: .post, parameters: form))
        XCTAssertEqual(
            specText(request.httpBody), "a%26b%3Dc=1%2B1%3D2%20%26%20more&name=Zo%C3%AB%20%F0%9F%98%80")
    }

    func testForm_nilAndNSNull_areLeftOut() throws {
        let missing: String? = nil
        let form = FormURLEncoded(["a": missing as Any, "b": NSNull(), "c": "kept", "d": [1, NSNull()]])
        let request = try specRequest(SpecEndpoint("/f", method: .post, parameters: form))
        XCTAssertEqual(specText(request.httpBody), "c=kept&d%5B%5D=1")
    }

    func testForm_empty_isAnEmptyBody() throws {
        let request = try specRequest(SpecEndpoint("/f", method: .post, parameters: FormURLEncoded([:])))
        XCTAssertEqual(request.httpBody, Data())
        XCTAssertEqual(
            request.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
    }

    func testForm_contentTypeHeader_wins() throws {
        let endpoint = SpecEndpoint(
            "/f", method: .post, parameters: FormURLEncoded(["a": 1]),
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        XCTAssertEqual(
            try specRequest(endpoint).value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded")
    }

    func testForm_onDELETE_isABody() throws {
        let request = try specRequest(SpecEndpoint("/f", method: .delete, parameters: FormURLEncoded(["id": 7])))
        XCTAssertEqual(specText(request.httpBody), "id=7")
        XCTAssertNil(request.specEncodedQuery)
    }

    func testForm_onGET_throwsEncoding() {
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/f", method: .get, parameters: FormURLEncoded(["a": 1])))
        }
        XCTAssertEqual(failure?.reason.contains("GET cannot carry a body, so FormURLEncoded cannot be sent"), true)
    }

    func testForm_unencodableValue_throwsEncodingNamingItsKeyPath() {
        let form = FormURLEncoded(["user": ["meta": NotConvertible()]])
        let failure = specEncodingError { _ = try specRequest(SpecEndpoint("/f", method: .post, parameters: form)) }
        let reason = failure?.reason ?? ""
        XCTAssertTrue(reason.contains("FormURLEncoded parameters go to a form body"), reason)
        XCTAssertTrue(reason.contains("\"user[meta]\" (NotConvertible) is not CustomStringConvertible"), reason)
    }

    func testForm_keepsItsParameters() {
        XCTAssertEqual(FormURLEncoded(["a": 1]).parameters["a"] as? Int, 1)
    }
}
