import Foundation
import Leash
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Data` parameters: the bytes as they are, never JSON.
final class DataBodyTests: XCTestCase {
    private let jpegStart = Data([0xFF, 0xD8, 0xFF])

    func testData_isSentAsItsBytesWithTheEndpointsContentType() throws {
        let endpoint = SpecEndpoint(
            "/photos", method: .post, parameters: jpegStart, headers: ["Content-Type": "image/jpeg"])
        let request = try specRequest(endpoint)
        XCTAssertEqual(request.httpBody.map(Array.init), [0xFF, 0xD8, 0xFF], "not a base64 JSON string")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "image/jpeg")
    }

    func testData_withoutContentTypeHeader_isOctetStream() throws {
        let request = try specRequest(SpecEndpoint("/blobs", method: .put, parameters: jpegStart))
        XCTAssertEqual(request.httpBody, jpegStart)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/octet-stream")
    }

    func testData_managersContentTypeHeader_isKept() throws {
        let request = try specRequest(SpecEndpoint("/blobs", method: .patch, parameters: jpegStart)) {
            $0.header("content-type", "application/pdf")
        }
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/pdf")
        XCTAssertEqual(request.httpBody, jpegStart)
    }

    func testData_empty_isAnEmptyBody() throws {
        let request = try specRequest(SpecEndpoint("/blobs", method: .post, parameters: Data()))
        XCTAssertEqual(request.httpBody, Data())
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/octet-stream")
    }

    func testData_onDELETE_goesToTheBody() throws {
        let request = try specRequest(SpecEndpoint("/blobs", method: .delete, parameters: jpegStart))
        XCTAssertEqual(request.httpBody, jpegStart)
        XCTAssertNil(request.specEncodedQuery)
    }

    func testData_onGETOrHEAD_throwsEncoding() {
        for method in [HTTPMethod.get, .head] {
            let failure = specEncodingError {
                _ = try specRequest(SpecEndpoint("/blobs", method: method, parameters: Data([1])))
            }
            let reason = failure?.reason ?? ""
            XCTAssertTrue(reason.contains("\(method) cannot carry a body, so Data cannot be sent"), reason)
            XCTAssertFalse(reason.contains("QueryEncodable"), "bytes cannot go to the query: \(reason)")
        }
    }
}
