import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct Filters: QueryEncodable {
    let ids: [Int]
    let active: Bool
    let nested: [[String]]
}

/// The manager's array and bool strategies, on queries (dictionaries and `QueryEncodable`).
final class URLEncodingOptionsTests: XCTestCase {
    private let filters = Filters(ids: [1, 2], active: true, nested: [["a"], ["b", "c"]])

    func testDefaults_areBracketsAndLiteral() throws {
        let manager = try Manager.Builder().url("http://h").build()
        XCTAssertEqual(manager.urlEncoding, URLEncodingOptions(arrays: .brackets, bools: .literal))
        XCTAssertEqual(
            queryItems(try specRequest(SpecEndpoint("/s", parameters: filters))),
            ["active=true", "ids[]=1", "ids[]=2", "nested[][]=a", "nested[][]=b", "nested[][]=c"])
    }

    func testBuilder_storesTheStrategiesOnTheManager() throws {
        let manager = try Manager.Builder().url("http://h").arrayEncoding(.indexInBrackets).boolEncoding(.numeric)
            .build()
        XCTAssertEqual(manager.urlEncoding.arrays, .indexInBrackets)
        XCTAssertEqual(manager.urlEncoding.bools, .numeric)
    }

    func testQueryEncodable_noBracketsAndNumeric() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: filters)) {
            $0.arrayEncoding(.noBrackets).boolEncoding(.numeric)
        }
        XCTAssertEqual(request.specEncodedQuery, "active=1&ids=1&ids=2&nested=a&nested=b&nested=c")
    }

    func testQueryEncodable_indexInBrackets() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: filters)) { $0.arrayEncoding(.indexInBrackets) }
        XCTAssertEqual(
            queryItems(request),
            ["active=true", "ids[0]=1", "ids[1]=2", "nested[0][0]=a", "nested[1][0]=b", "nested[1][1]=c"])
    }

    func testDictionary_noBrackets() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: ["tag": ["x", "y"], "q": "z"])) {
            $0.arrayEncoding(.noBrackets)
        }
        XCTAssertEqual(request.specEncodedQuery, "q=z&tag=x&tag=y")
    }

    func testDictionary_indexInBrackets_nestedInADictionary() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: ["filter": ["ids": [5, 6]]])) {
            $0.arrayEncoding(.indexInBrackets)
        }
        XCTAssertEqual(queryItems(request), ["filter[ids][0]=5", "filter[ids][1]=6"])
    }

    func testDictionary_swiftBools_literalAndNumeric() throws {
        let endpoint = SpecEndpoint("/s", parameters: ["on": true, "off": false, "flags": [true]])
        XCTAssertEqual(queryItems(try specRequest(endpoint)), ["flags[]=true", "off=false", "on=true"])
        XCTAssertEqual(
            queryItems(try specRequest(endpoint) { $0.boolEncoding(.numeric) }), ["flags[]=1", "off=0", "on=1"])
    }

    func testDictionary_boolsFromJSONSerialization_areBoolsAndNumbersStayNumbers() throws {
        // On Linux, JSONSerialization's Booleans are NSNumbers, and NSNumber(1) casts to
        // true: only the class of the number tells them apart.
        let json = try JSONSerialization.jsonObject(
            with: Data(#"{"on":true,"off":false,"one":1,"zero":0,"x":1.5}"#.utf8))
        let parameters = try XCTUnwrap(json as? [String: Any])
        let endpoint = SpecEndpoint("/s", parameters: parameters)
        XCTAssertEqual(try specRequest(endpoint).specEncodedQuery, "off=false&on=true&one=1&x=1.5&zero=0")
        XCTAssertEqual(
            try specRequest(endpoint) { $0.boolEncoding(.numeric) }.specEncodedQuery, "off=0&on=1&one=1&x=1.5&zero=0")
    }

    func testDictionary_numbersThatAreNotBools_areNotTurnedIntoBools() throws {
        let parameters: [String: Any] = ["int": 1, "int8": Int8(1), "number": NSNumber(value: 0), "double": 0.0]
        let request = try specRequest(SpecEndpoint("/s", parameters: parameters)) { $0.boolEncoding(.literal) }
        XCTAssertEqual(request.specEncodedQuery, "double=0.0&int=1&int8=1&number=0")
    }

    func testDictionary_NSNull_isLeftOut() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: ["a": NSNull(), "b": "kept"]))
        XCTAssertEqual(request.specEncodedQuery, "b=kept")
    }

    /// The decoded query items as `name=value`, in order.
    private func queryItems(_ request: URLRequest) -> [String] {
        guard let url = request.url, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        else { return [] }
        return items.map { "\($0.name)=\($0.value ?? "")" }
    }
}
