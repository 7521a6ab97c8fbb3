import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct User: Decodable, Equatable {
    let id: Int
    let name: String
}

private struct Failure: Error, Equatable {}

final class ResponseSerializerTests: XCTestCase {
    // MARK: Decodable

    func testDecodable_success() throws {
        let user = try DecodableResponseSerializer<User>().serialize(
            request: request(), response: response(200), data: Data(#"{"id":1,"name":"Ada"}"#.utf8), error: nil)
        XCTAssertEqual(user, User(id: 1, name: "Ada"))
    }

    func testDecodable_usesTheGivenDecoder() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Named: Decodable, Equatable { let firstName: String }
        let value = try DecodableResponseSerializer<Named>(decoder: decoder).serialize(
            request: request(), response: response(200), data: Data(#"{"first_name":"Ada"}"#.utf8), error: nil)
        XCTAssertEqual(value, Named(firstName: "Ada"))
    }

    func testDecodable_missingKey_keepsTheDecodingErrorAndAnExcerpt() {
        let body = #"{"id":1,"nom":"Ada"}"#
        assertDecodingError(DecodableResponseSerializer<User>(), body: Data(body.utf8)) { type, underlying, excerpt in
            XCTAssertEqual(type, "User")
            guard case .keyNotFound(let key, _) = underlying as? DecodingError else {
                return XCTFail("expected keyNotFound, got \(underlying)")
            }
            XCTAssertEqual(key.stringValue, "name")
            XCTAssertEqual(excerpt, body)
        }
    }

    func testDecodable_typeMismatch_messageSaysWhereAndWhat() throws {
        let error = try XCTUnwrap(
            serializeError(DecodableResponseSerializer<User>(), body: Data(#"{"id":"one","name":"Ada"}"#.utf8)))
        let message = error.description
        XCTAssertTrue(message.hasPrefix("Could not decode User: expected Int at id"), message)
        XCTAssertTrue(message.hasSuffix(#"Body begins: {"id":"one","name":"Ada"}"#), message)
    }

    func testDecodable_truncatedJSON_isDataCorrupted() {
        let body = Data(#"{"id":1,"na"#.utf8)
        assertDecodingError(DecodableResponseSerializer<User>(), body: body) { _, underlying, excerpt in
            guard case .dataCorrupted = underlying as? DecodingError else {
                return XCTFail("expected dataCorrupted, got \(underlying)")
            }
            XCTAssertEqual(excerpt, #"{"id":1,"na"#)
        }
    }

    func testDecodable_longBody_excerptIsShortened() {
        let body = Data(("[" + String(repeating: "\"é€😀\",", count: 400)).utf8)
        assertDecodingError(DecodableResponseSerializer<User>(), body: body) { _, _, excerpt in
            XCTAssertEqual(excerpt.count, 201, "200 characters and an ellipsis")
            XCTAssertTrue(excerpt.hasPrefix("[\"é€😀\","))
            XCTAssertTrue(excerpt.hasSuffix("…"))
        }
    }

    func testDecodable_binaryBody_excerptGivesTheSize() {
        assertDecodingError(DecodableResponseSerializer<User>(), body: Data([0xFF, 0xFE, 0x00, 0x01])) {
            _, _, excerpt in
            XCTAssertEqual(excerpt, "(4 bytes, not UTF-8)")
        }
    }

    func testDecodable_emptyBodyOf204_decodesEmptyResponseAndOptionals() throws {
        for status in [204, 205] {
            XCTAssertEqual(
                try DecodableResponseSerializer<EmptyResponse>().serialize(
                    request: request(), response: response(status), data: Data(), error: nil),
                EmptyResponse())
            XCTAssertNil(
                try DecodableResponseSerializer<User?>().serialize(
                    request: request(), response: response(status), data: nil, error: nil))
        }
    }

    func testDecodable_HEAD_decodesEmptyResponse() throws {
        XCTAssertEqual(
            try DecodableResponseSerializer<EmptyResponse>().serialize(
                request: request(method: "HEAD"), response: response(200), data: Data(), error: nil),
            EmptyResponse())
    }

    func testDecodable_emptyBodyOf204ForAValueType_saysToUseEmptyResponse() {
        assertDecodingError(DecodableResponseSerializer<User>(), status: 204, body: Data()) {
            type, underlying, excerpt in
            XCTAssertEqual(type, "User")
            XCTAssertTrue("\(underlying)".contains("decode EmptyResponse instead"))
            XCTAssertEqual(excerpt, "(empty)")
        }
    }

    func testDecodable_emptyBodyOf200_isADecodingError() {
        assertDecodingError(DecodableResponseSerializer<User>(), body: Data()) { _, underlying, excerpt in
            guard case .dataCorrupted = underlying as? DecodingError else {
                return XCTFail("expected dataCorrupted, got \(underlying)")
            }
            XCTAssertEqual(excerpt, "(empty)")
        }
    }

    func testDecodable_emptyResponse_ignoresABody() throws {
        XCTAssertEqual(
            try DecodableResponseSerializer<EmptyResponse>().serialize(
                request: request(), response: response(200), data: Data(#"{"anything":1}"#.utf8), error: nil),
            EmptyResponse())
    }

    func testDecodable_givenError_isRethrown() {
        XCTAssertThrowsError(
            try DecodableResponseSerializer<User>().serialize(
                request: request(), response: nil, data: nil, error: Failure())
        ) { XCTAssertEqual($0 as? Failure, Failure()) }
    }

    // MARK: Data, String, JSON, empty

    func testData_returnsTheBody_orEmptyData() throws {
        let serializer = DataResponseSerializer()
        XCTAssertEqual(
            try serializer.serialize(request: request(), response: response(200), data: Data([1, 2]), error: nil),
            Data([1, 2]))
        XCTAssertEqual(
            try serializer.serialize(request: request(), response: response(204), data: nil, error: nil), Data())
        XCTAssertThrowsError(try serializer.serialize(request: nil, response: nil, data: nil, error: Failure()))
    }

    func testString_defaultsToUTF8() throws {
        XCTAssertEqual(try string(Data("héllo".utf8), contentType: "text/plain"), "héllo")
        XCTAssertEqual(try string(Data("héllo".utf8), contentType: nil), "héllo")
    }

    func testString_usesTheDeclaredCharset() throws {
        let latin1 = Data([0x63, 0x61, 0x66, 0xE9])  // "café" in ISO-8859-1
        XCTAssertEqual(try string(latin1, contentType: "text/plain; charset=ISO-8859-1"), "café")
        XCTAssertEqual(try string(latin1, contentType: "text/plain; charset=\"windows-1252\""), "café")
        let utf16 = try XCTUnwrap("hé".data(using: .utf16LittleEndian))
        XCTAssertEqual(try string(utf16, contentType: "text/plain; charset=utf-16le"), "hé")
        XCTAssertEqual(try string(Data([0x82, 0xA0]), contentType: "text/plain; charset=Shift_JIS"), "あ")
    }

    func testString_unknownCharset_fallsBackToUTF8() throws {
        XCTAssertEqual(try string(Data("ok".utf8), contentType: "text/plain; charset=x-unknown"), "ok")
    }

    func testString_invalidText_throwsSerializationSayingWhy() {
        XCTAssertThrowsError(try string(Data([0x61, 0xFF, 0xFE]), contentType: "text/plain; charset=utf-8")) { error in
            guard case .serialization(let reason, _) = error as? LeashError else {
                return XCTFail("expected LeashError.serialization, got \(error)")
            }
            XCTAssertTrue(reason.contains("the body (3 bytes) is not valid"), reason)
            XCTAssertTrue(reason.contains("declared charset \"utf-8\""), reason)
        }
    }

    func testJSON_parsesObjectsArraysAndFragments() throws {
        let serializer = JSONResponseSerializer()
        let object = try serializer.serialize(
            request: request(), response: response(200), data: Data(#"{"a":[1,"x"]}"#.utf8), error: nil)
        let dictionary = try XCTUnwrap(object as? [String: Any])
        let array = try XCTUnwrap(dictionary["a"] as? [Any])
        XCTAssertEqual(array.first as? Int, 1)
        XCTAssertEqual(array.last as? String, "x")
        XCTAssertEqual(
            try serializer.serialize(request: request(), response: response(200), data: Data("42".utf8), error: nil)
                as? Int, 42)
    }

    func testJSON_emptyNoContent_isNSNull() throws {
        XCTAssertTrue(
            try JSONResponseSerializer().serialize(request: request(), response: response(204), data: nil, error: nil)
                is NSNull)
    }

    func testJSON_garbage_isADecodingErrorWithExcerpt() {
        assertDecodingError(JSONResponseSerializer(), body: Data("<html>oops</html>".utf8)) { type, _, excerpt in
            XCTAssertEqual(type, "JSON")
            XCTAssertEqual(excerpt, "<html>oops</html>")
        }
    }

    func testEmpty_ignoresAnyBody() throws {
        XCTAssertEqual(
            try EmptyResponseSerializer().serialize(
                request: request(), response: response(200), data: Data("x".utf8), error: nil),
            EmptyResponse())
        XCTAssertThrowsError(
            try EmptyResponseSerializer().serialize(request: nil, response: nil, data: nil, error: Failure()))
    }

    func testCustomSerializer_asTheReadmeWritesIt() throws {
        // The README's custom JSON serializer, written against our protocol.
        struct ReadmeJSONSerializer: ResponseSerializer {
            func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Error?) throws -> Any {
                if let error { throw error }
                return try JSONSerialization.jsonObject(with: data ?? Data(), options: [.fragmentsAllowed])
            }
        }
        let value = try ReadmeJSONSerializer().serialize(
            request: request(), response: response(200), data: Data(#"{"ok":true}"#.utf8), error: nil)
        XCTAssertEqual((value as? [String: Any])?["ok"] as? Bool, true)
    }

    // MARK: Helpers

    private let url = URL(string: "http://example.com/x") ?? URL(fileURLWithPath: "/")

    private func request(method: String = "GET") -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        return request
    }

    private func response(_ status: Int, headers: [String: String] = [:]) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
    }

    private func string(_ data: Data, contentType: String?) throws -> String {
        try StringResponseSerializer().serialize(
            request: request(), response: response(200, headers: contentType.map { ["Content-Type": $0] } ?? [:]),
            data: data, error: nil)
    }

    private func serializeError<Serializer: ResponseSerializer>(
        _ serializer: Serializer, status: Int = 200, body: Data
    ) -> LeashError? {
        do {
            _ = try serializer.serialize(request: request(), response: response(status), data: body, error: nil)
            return nil
        } catch {
            return error as? LeashError
        }
    }

    private func assertDecodingError<Serializer: ResponseSerializer>(
        _ serializer: Serializer, status: Int = 200, body: Data, file: StaticString = #filePath, line: UInt = #line,
        _ check: (String, Error, String) -> Void
    ) {
        guard
            case .decoding(let type, let underlying, let excerpt) = serializeError(
                serializer, status: status, body: body)
        else {
            return XCTFail("expected LeashError.decoding", file: file, line: line)
        }
        check(type, underlying, excerpt)
    }
}
