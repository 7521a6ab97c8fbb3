import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's upload example.
struct UploadAvatar: Endpoint {
    let userID: Int
    let photo: URL  // a file on disk, such as …/me.jpg
    var path: String { "/users/\(userID)/avatar" }
    var method: HTTPMethod { .post }
    var parameters: Any? {
        let form = MultipartFormData()
        form.append("profile", name: "purpose")
        form.append(fileAt: photo, name: "avatar")  // filename="me.jpg", Content-Type: image/jpeg
        return form
    }
}

/// How a `MultipartFormData` parameter becomes a request: in memory or staged on disk.
final class MultipartRequestTests: TemporaryFilesTestCase {
    func testReadmeExample_sendsTheFieldAndTheFile() throws {
        let photo = try makeFile("me.jpg", contents: Data([0xFF, 0xD8, 0xFF, 0xE0]))
        let request = try specRequest(UploadAvatar(userID: 7, photo: photo))
        XCTAssertEqual(request.url?.path, "/api/users/7/avatar")
        let contentType = request.value(forHTTPHeaderField: "Content-Type") ?? ""
        XCTAssertTrue(contentType.hasPrefix("multipart/form-data; boundary=leash.boundary."), contentType)
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        var expected = Data(
            ("--\(boundary)\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nprofile\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"me.jpg\"\r\n"
                + "Content-Type: image/jpeg\r\n\r\n").utf8)
        expected.append(contentsOf: [0xFF, 0xD8, 0xFF, 0xE0])
        expected.append(Data("\r\n--\(boundary)--\r\n".utf8))
        XCTAssertEqual(request.httpBody, expected)
    }

    func testSmallForm_isTheBodyWithTheFormsContentType() throws {
        let form = MultipartFormData(boundary: "b")
        form.append("Ada", name: "name")
        let request = try specRequest(SpecEndpoint("/forms", method: .post, parameters: form))
        XCTAssertEqual(request.httpBody, try form.encoded())
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "multipart/form-data; boundary=b")
        XCTAssertNil(request.value(forHTTPHeaderField: "Content-Length"), "URLSession counts an in-memory body")
        XCTAssertNil(RequestBuilder.streamedBody(of: form, for: request))
    }

    func testFormAtTheThreshold_isStillEncodedInMemory() throws {
        let form = MultipartFormData(boundary: "b")
        form.append("Ada", name: "name")
        form.encodingMemoryThreshold = try form.contentLength()
        let request = try specRequest(SpecEndpoint("/forms", method: .post, parameters: form))
        XCTAssertEqual(request.httpBody, try form.encoded())
    }

    func testFormOverTheThreshold_hasContentLengthAndNoBody() throws {
        let file = try makeFile("big.bin", contents: patternedBytes(count: 200_000))
        let form = MultipartFormData(boundary: "b")
        form.append(fileAt: file, name: "big")
        form.encodingMemoryThreshold = 100_000
        let request = try specRequest(SpecEndpoint("/forms", method: .put, parameters: form))
        XCTAssertNil(request.httpBody)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Length"), String(try form.contentLength()))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "multipart/form-data; boundary=b")
        guard case .multipart(let streamed)? = RequestBuilder.streamedBody(of: form, for: request) else {
            return XCTFail("expected the form to be streamed")
        }
        XCTAssertTrue(streamed === form)
    }

    func testContentTypeHeader_isReplacedByTheFormsBoundary() throws {
        let form = MultipartFormData(boundary: "mine")
        let endpoint = SpecEndpoint(
            "/forms", method: .post, parameters: form, headers: ["content-type": "multipart/form-data; boundary=x"])
        let request = try specRequest(endpoint)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "multipart/form-data; boundary=mine")
        XCTAssertEqual(request.allHTTPHeaderFields?.keys.filter { $0.lowercased() == "content-type" }.count, 1)
    }

    func testFormOnGETOrHEAD_throwsEncoding() {
        for method in [HTTPMethod.get, .head] {
            let failure = specEncodingError {
                _ = try specRequest(SpecEndpoint("/forms", method: method, parameters: MultipartFormData()))
            }
            let reason = failure?.reason ?? ""
            XCTAssertTrue(reason.contains("\(method) cannot carry a body, so MultipartFormData cannot be sent"), reason)
            XCTAssertTrue(reason.contains("POST, PUT or PATCH"), reason)
        }
    }

    func testFormWithAMissingFile_failsBeforeAnythingIsSent() throws {
        let form = MultipartFormData()
        form.append(fileAt: directory.appendingPathComponent("gone.txt"), name: "doc")
        let failure = try pipelineEncodingFailure(SpecEndpoint("/forms", method: .post, parameters: form))
        let reason = failure?.reason ?? ""
        XCTAssertTrue(reason.contains("gone.txt (part \"doc\") does not exist"), reason)
        XCTAssertNotNil(failure?.underlying ?? nil)
    }
}
