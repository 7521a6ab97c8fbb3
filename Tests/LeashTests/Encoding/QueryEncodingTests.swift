import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct Filter: Encodable {
    let name: String
    let tags: [String]
}

private struct Search: QueryEncodable {
    let term: String
    let page: Int
    let exact: Bool
    let missing: String?
    let filter: Filter
    let ids: [Int]
}

private struct Dated: QueryEncodable {
    let at: Date
}

private struct Paging: QueryEncodable {
    let pageSize: Int
    let ratio: Double
}

private struct Escaped: QueryEncodable {
    let value: String
}

private struct SingleValue: QueryEncodable {
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("just a string")
    }
}

private struct Unkeyed: QueryEncodable {
    func encode(to encoder: Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(1)
    }
}

private struct NotANumber: QueryEncodable {
    let value = Double.nan
}

private struct ThrowingQuery: QueryEncodable {
    struct Refused: Error, Equatable {}
    func encode(to encoder: Encoder) throws { throw Refused() }
}

private struct NotConvertible {}

final class QueryEncodingTests: XCTestCase {
    // MARK: QueryEncodable

    func testQueryEncodable_flattensSortedNestedObjectsArraysBoolsAndLeavesOutNil() throws {
        let search = Search(
            term: "swift rx", page: 2, exact: true, missing: nil, filter: Filter(name: "x", tags: ["a", "b"]),
            ids: [1, 2])
        let request = try specRequest(SpecEndpoint("/search", parameters: search))
        XCTAssertEqual(
            request.specEncodedQuery,
            "exact=true&filter%5Bname%5D=x&filter%5Btags%5D%5B%5D=a&filter%5Btags%5D%5B%5D=b"
                + "&ids%5B%5D=1&ids%5B%5D=2&page=2&term=swift%20rx")
        XCTAssertEqual(
            queryItems(request),
            [
                "exact=true", "filter[name]=x", "filter[tags][]=a", "filter[tags][]=b", "ids[]=1", "ids[]=2", "page=2",
                "term=swift rx",
            ])
        XCTAssertNil(request.httpBody)
        XCTAssertNil(request.value(forHTTPHeaderField: "Content-Type"), "no body, so no content type")
    }

    func testQueryEncodable_falseBool_isFalse() throws {
        let search = Search(
            term: "t", page: 1, exact: false, missing: "m", filter: Filter(name: "n", tags: []), ids: [])
        XCTAssertEqual(
            queryItems(try specRequest(SpecEndpoint("/s", parameters: search))),
            ["exact=false", "filter[name]=n", "missing=m", "page=1", "term=t"])
    }

    func testQueryEncodable_datesUseTheManagersStrategy() throws {
        let date = Date(timeIntervalSinceReferenceDate: 0)
        let endpoint = SpecEndpoint("/events", parameters: Dated(at: date))
        XCTAssertEqual(
            try specRequest(endpoint) { $0.jsonEncoder { $0.dateEncodingStrategy = .iso8601 } }.specEncodedQuery,
            "at=2001-01-01T00%3A00%3A00Z")
        XCTAssertEqual(
            try specRequest(endpoint) { $0.jsonEncoder { $0.dateEncodingStrategy = .secondsSince1970 } }
                .specEncodedQuery,
            "at=978307200")
        XCTAssertEqual(try specRequest(endpoint).specEncodedQuery, "at=0", "JSONEncoder's default: seconds since 2001")
    }

    func testQueryEncodable_keyStrategyAndNumbers_fromTheManagersEncoder() throws {
        let request = try specRequest(SpecEndpoint("/p", parameters: Paging(pageSize: 20, ratio: 1.5))) {
            $0.jsonEncoder { $0.keyEncodingStrategy = .convertToSnakeCase }
        }
        XCTAssertEqual(request.specEncodedQuery, "page_size=20&ratio=1.5")
    }

    func testQueryEncodable_endpointEncoder_winsOverTheManagers() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let endpoint = SpecEndpoint("/p", parameters: Paging(pageSize: 5, ratio: 0.25), jsonEncoder: encoder)
        XCTAssertEqual(try specRequest(endpoint).specEncodedQuery, "page_size=5&ratio=0.25")
    }

    func testQueryEncodable_onPOST_goesToTheQueryNotTheBody() throws {
        let request = try specRequest(SpecEndpoint("/p", method: .post, parameters: Escaped(value: "v")))
        XCTAssertEqual(request.specEncodedQuery, "value=v")
        XCTAssertNil(request.httpBody)
    }

    // MARK: [String: CustomStringConvertible]

    func testDictionary_sortedKeysAndDescriptions() throws {
        let parameters: [String: CustomStringConvertible] = ["b": 2, "a": "x y", "c": true, "d": 1.5]
        XCTAssertEqual(
            try specRequest(SpecEndpoint("/s", parameters: parameters)).specEncodedQuery, "a=x%20y&b=2&c=true&d=1.5")
    }

    func testDictionary_orderIsStableAcrossBuilds() throws {
        var parameters: [String: CustomStringConvertible] = [:]
        for index in 0..<50 { parameters["key\(index)"] = index }
        let first = try specRequest(SpecEndpoint("/s", parameters: parameters)).specEncodedQuery
        let names = queryItems(try specRequest(SpecEndpoint("/s", parameters: parameters))).map {
            String($0.prefix { $0 != "=" })
        }
        XCTAssertEqual(names, parameters.keys.sorted())
        for _ in 0..<5 {
            XCTAssertEqual(try specRequest(SpecEndpoint("/s", parameters: parameters)).specEncodedQuery, first)
        }
    }

    func testDictionary_nestedArraysAndDictionaries_areFlattened() throws {
        let parameters: [String: Any] = ["ids": [1, 2], "filter": ["b": "2", "a": 1], "q": "x"]
        XCTAssertEqual(
            queryItems(try specRequest(SpecEndpoint("/s", parameters: parameters))),
            ["filter[a]=1", "filter[b]=2", "ids[]=1", "ids[]=2", "q=x"])
    }

    func testDictionary_nilValues_areLeftOut() throws {
        let missing: Int? = nil
        let present: Int? = 3
        let parameters: [String: Any] = ["a": missing as Any, "b": present as Any, "c": "c"]
        XCTAssertEqual(try specRequest(SpecEndpoint("/s", parameters: parameters)).specEncodedQuery, "b=3&c=c")
    }

    func testDictionary_onDELETEAndHEAD_goesToTheQuery() throws {
        for method in [HTTPMethod.delete, .head] {
            let request = try specRequest(SpecEndpoint("/s", method: method, parameters: ["id": 7]))
            XCTAssertEqual(request.specEncodedQuery, "id=7", "\(method)")
            XCTAssertNil(request.httpBody, "\(method)")
        }
    }

    // MARK: Escaping

    func testEscaping_reservedCharactersInValues_RFC3986() throws {
        // `&=+;#`, space and brackets are escaped; `/` and `?` may stay in a query (RFC 3986 §3.4).
        let request = try specRequest(SpecEndpoint("/s", parameters: ["k": "a&b=c+d;e#f?g/h [i]"]))
        XCTAssertEqual(request.specEncodedQuery, "k=a%26b%3Dc%2Bd%3Be%23f?g/h%20%5Bi%5D")
        XCTAssertEqual(queryItems(request), ["k=a&b=c+d;e#f?g/h [i]"])
    }

    func testEscaping_reservedCharactersInKeys() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: ["a b&c=d": "1"]))
        XCTAssertEqual(request.specEncodedQuery, "a%20b%26c%3Dd=1")
    }

    func testEscaping_unicode_asUTF8() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: Escaped(value: "café 😀")))
        XCTAssertEqual(request.specEncodedQuery, "value=caf%C3%A9%20%F0%9F%98%80")
    }

    func testEscaping_unreservedCharacters_areLeftAlone() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: ["k": "AZaz09-._~"]))
        XCTAssertEqual(request.specEncodedQuery, "k=AZaz09-._~")
    }

    // MARK: Merging

    func testMerge_baseURLQuery_isKeptFirst() throws {
        let request = try specRequest(
            SpecEndpoint("/s", parameters: ["page": 1]), base: "http://example.com/api?key=abc")
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/api/s?key=abc&page=1")
    }

    func testMerge_emptyParameters_leaveTheURLAlone() throws {
        let request = try specRequest(SpecEndpoint("/s", parameters: [String: CustomStringConvertible]()))
        XCTAssertEqual(request.url?.absoluteString, "http://example.com/api/s")
    }

    // MARK: Bad input

    func testBadInput_queryEncodableEncodingASingleValue_throwsEncoding() {
        let failure = specEncodingError { _ = try specRequest(SpecEndpoint("/s", parameters: SingleValue())) }
        XCTAssertEqual(
            failure?.reason.contains("SingleValue must encode to a keyed container"), true, String(describing: failure))
    }

    func testBadInput_queryEncodableEncodingAnArray_throwsEncoding() {
        let failure = specEncodingError { _ = try specRequest(SpecEndpoint("/s", parameters: Unkeyed())) }
        XCTAssertEqual(failure?.reason.contains("keyed container"), true)
    }

    func testBadInput_queryEncodableWithNaN_throwsEncodingKeepingTheEncodingError() {
        let failure = specEncodingError { _ = try specRequest(SpecEndpoint("/s", parameters: NotANumber())) }
        XCTAssertEqual(failure?.reason.contains("NotANumber could not be encoded"), true)
        guard case .invalidValue(let value, _) = failure?.underlying as? EncodingError else {
            return XCTFail("expected EncodingError.invalidValue, got \(String(describing: failure?.underlying))")
        }
        XCTAssertTrue((value as? Double)?.isNaN == true)
    }

    func testBadInput_queryEncodableThatThrows_keepsItsError() {
        let failure = specEncodingError { _ = try specRequest(SpecEndpoint("/s", parameters: ThrowingQuery())) }
        XCTAssertEqual(failure?.underlying as? ThrowingQuery.Refused, ThrowingQuery.Refused())
    }

    func testBadInput_nonConvertibleDictionaryValueOnGET_throwsEncodingNamingTheKey() {
        let parameters: [String: Any] = ["ok": 1, "bad": NotConvertible()]
        let failure = specEncodingError { _ = try specRequest(SpecEndpoint("/s", parameters: parameters)) }
        let reason = failure?.reason ?? ""
        XCTAssertTrue(reason.contains("GET parameters go to the URL query"), reason)
        XCTAssertTrue(reason.contains("\"bad\" (NotConvertible) is not CustomStringConvertible"), reason)
    }

    func testBadInput_nonConvertibleNestedValue_namesItsPath() {
        let parameters: [String: Any] = ["filter": ["inner": NotConvertible()]]
        let failure = specEncodingError { _ = try specRequest(SpecEndpoint("/s", parameters: parameters)) }
        XCTAssertEqual(failure?.reason.contains("\"filter[inner]\""), true, failure?.reason ?? "")
    }

    func testEncodingError_description_includesReasonAndCause() {
        let cause = EncodingError.invalidValue(Double.nan, .init(codingPath: [], debugDescription: "NaN"))
        let error = LeashError.encoding(reason: "Value could not be encoded", underlying: cause)
        XCTAssertTrue(error.description.hasPrefix("Could not encode the parameters: Value could not be encoded ("))
        XCTAssertNotNil(error.underlyingError as? EncodingError)
    }

    /// The decoded query items as `name=value`, in order.
    private func queryItems(_ request: URLRequest) -> [String] {
        guard let url = request.url, let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        else { return [] }
        return items.map { "\($0.name)=\($0.value ?? "")" }
    }
}
