import Foundation
import Leash
import LeashTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct NewUser: Encodable {
    let firstName: String
    let bornAt: Date
}

private struct Measurement: Encodable {
    let value: Double
}

private struct NotEncodable {}

final class BodyEncodingTests: XCTestCase {
    // MARK: Encodable

    func testEncodable_usesTheManagersEncoder() throws {
        let user = NewUser(firstName: "Ada", bornAt: Date(timeIntervalSince1970: 0))
        let request = try specRequest(SpecEndpoint("/users", method: .post, parameters: user)) {
            $0.jsonEncoder {
                $0.keyEncodingStrategy = .convertToSnakeCase
                $0.dateEncodingStrategy = .iso8601
                $0.outputFormatting = .sortedKeys
            }
        }
        XCTAssertEqual(body(request), #"{"born_at":"1970-01-01T00:00:00Z","first_name":"Ada"}"#)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(request.httpMethod, "POST")
        XCTAssertNil(request.specEncodedQuery)
    }

    func testEncodable_endpointEncoder_winsOverTheManagers() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        let user = NewUser(firstName: "Ada", bornAt: Date(timeIntervalSince1970: 60))
        let request = try specRequest(SpecEndpoint("/users", method: .put, parameters: user, jsonEncoder: encoder)) {
            $0.jsonEncoder { $0.keyEncodingStrategy = .convertToSnakeCase }
        }
        XCTAssertEqual(body(request), #"{"bornAt":60,"firstName":"Ada"}"#)
    }

    func testEncodable_onPUTPATCHAndDELETE_goesToTheBody() throws {
        for method in [HTTPMethod.put, .patch, .delete] {
            let request = try specRequest(SpecEndpoint("/m", method: method, parameters: Measurement(value: 2.5)))
            XCTAssertEqual(body(request), #"{"value":2.5}"#, "\(method)")
            XCTAssertEqual(request.httpMethod, method.rawValue)
        }
    }

    func testEncodable_topLevelArray() throws {
        let request = try specRequest(SpecEndpoint("/ids", method: .post, parameters: [3, 1, 2]))
        XCTAssertEqual(body(request), "[3,1,2]")
    }

    // MARK: [String: Any]

    func testDictionary_isSerializedWithSortedKeys() throws {
        let parameters: [String: Any] = ["b": 1, "a": ["x", true, NSNull()], "c": ["z": 1.5]]
        let request = try specRequest(SpecEndpoint("/d", method: .post, parameters: parameters))
        XCTAssertEqual(body(request), #"{"a":["x",true,null],"b":1,"c":{"z":1.5}}"#)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    // MARK: Content-Type

    func testContentType_endpointHeader_isKept() throws {
        let endpoint = SpecEndpoint(
            "/d", method: .post, parameters: ["a": 1], headers: ["Content-Type": "application/vnd.api+json"])
        XCTAssertEqual(try specRequest(endpoint).value(forHTTPHeaderField: "Content-Type"), "application/vnd.api+json")
    }

    func testContentType_defaultHeaderInAnyCase_isKept() throws {
        let request = try specRequest(SpecEndpoint("/d", method: .post, parameters: Measurement(value: 1))) {
            $0.header("content-type", "application/merge-patch+json")
        }
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/merge-patch+json")
    }

    func testContentType_absentWithoutBody() throws {
        XCTAssertNil(try specRequest(SpecEndpoint("/d", method: .post)).value(forHTTPHeaderField: "Content-Type"))
    }

    // MARK: Bad input

    func testBadInput_unsupportedParameterType_throwsEncodingNamingTheType() {
        for method in [HTTPMethod.get, .post] {
            let failure = specEncodingError {
                _ = try specRequest(SpecEndpoint("/x", method: method, parameters: NotEncodable()))
            }
            let reason = failure?.reason ?? ""
            XCTAssertTrue(reason.contains("parameters of type NotEncodable are not supported"), reason)
            XCTAssertTrue(reason.contains("QueryEncodable"), "says what is supported: \(reason)")
        }
    }

    func testBadInput_nanInEncodable_throwsEncodingKeepingTheEncodingError() {
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/m", method: .post, parameters: Measurement(value: .nan)))
        }
        XCTAssertEqual(failure?.reason.contains("Measurement could not be encoded to JSON"), true)
        guard case .invalidValue(_, let context) = failure?.underlying as? EncodingError else {
            return XCTFail("expected EncodingError.invalidValue, got \(String(describing: failure?.underlying))")
        }
        XCTAssertEqual(context.codingPath.map(\.stringValue), ["value"])
    }

    func testBadInput_nonJSONValueInDictionary_throwsEncodingNamingItsPath() {
        let parameters: [String: Any] = ["user": ["name": "Ada", "born": Date(timeIntervalSince1970: 0)]]
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/d", method: .post, parameters: parameters))
        }
        let reason = failure?.reason ?? ""
        XCTAssertTrue(reason.contains("the value at \"user.born\" (Date) cannot be sent as JSON"), reason)
        guard case .invalidValue(let value, let context) = failure?.underlying as? EncodingError else {
            return XCTFail("expected EncodingError.invalidValue, got \(String(describing: failure?.underlying))")
        }
        XCTAssertTrue(value is Date)
        XCTAssertEqual(context.codingPath.map(\.stringValue), ["user", "born"])
    }

    func testBadInput_nonJSONValueInNestedArray_namesTheIndex() {
        let parameters: [String: Any] = ["items": [1, NotEncodable()]]
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/d", method: .post, parameters: parameters))
        }
        XCTAssertEqual(failure?.reason.contains("\"items[1]\" (NotEncodable)"), true, failure?.reason ?? "")
    }

    func testBadInput_nanInAnyDictionary_throwsEncodingInsteadOfCrashing() {
        // JSONSerialization would raise an exception (a crash on Darwin) for NaN.
        let parameters: [String: Any] = ["x": Double.nan, "y": "fine"]
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/d", method: .post, parameters: parameters))
        }
        XCTAssertEqual(failure?.reason.contains("\"x\" (Double nan)"), true, failure?.reason ?? "")
        XCTAssertTrue(failure?.underlying is EncodingError)
    }

    func testBadInput_nanInEncodableDictionary_throwsEncodingKeepingTheEncodingError() {
        // A [String: Double] is Encodable, so JSONEncoder meets the NaN and says so.
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/d", method: .post, parameters: ["x": Double.nan]))
        }
        XCTAssertEqual(failure?.reason.contains("could not be encoded to JSON"), true, failure?.reason ?? "")
        XCTAssertTrue(failure?.underlying is EncodingError)
    }

    func testBadInput_encodableBodyOnGET_throwsEncoding() {
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/m", method: .get, parameters: Measurement(value: 1)))
        }
        let reason = failure?.reason ?? ""
        XCTAssertTrue(reason.contains("GET cannot carry a body, so Measurement cannot be sent"), reason)
        XCTAssertTrue(reason.contains("QueryEncodable"), "says how to fix it: \(reason)")
        XCTAssertNil(failure?.underlying ?? nil)
    }

    func testBadInput_encodableBodyOnHEAD_throwsEncoding() {
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/m", method: .head, parameters: Measurement(value: 1)))
        }
        XCTAssertEqual(failure?.reason.contains("HEAD cannot carry a body"), true)
    }

    func testBadInput_reachesTheCallerAsATypedError() throws {
        // Through the whole pipeline, not only urlRequest(for:): the execution fails with it.
        let transport = StubTransport()
        let client = Client(manager: try Manager.Builder().url("http://h").transport(transport).build())
        let done = expectation(description: "failed")
        client.execute(SpecEndpoint("/m", method: .post, parameters: Measurement(value: .infinity))) {
            (response: Response<Data>) in
            guard case .encoding(_, let underlying) = response.error as? LeashError else {
                return XCTFail("expected LeashError.encoding, got \(response)")
            }
            XCTAssertTrue(underlying is EncodingError)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertTrue(transport.requests.isEmpty, "nothing is sent")
    }

    private func body(_ request: URLRequest) -> String? {
        request.httpBody.map { String(decoding: $0, as: UTF8.self) }
    }
}
