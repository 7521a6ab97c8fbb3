import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `UploadFile` parameters: headers set, the body left to the transport, bad files refused.
final class UploadFileTests: TemporaryFilesTestCase {
    func testUploadFile_setsContentTypeAndLengthAndNoBody() throws {
        let file = try makeFile("clip.mp4", contents: patternedBytes(count: 12_345))
        let upload = UploadFile(file, contentType: "video/mp4")
        let request = try specRequest(SpecEndpoint("/videos", method: .post, parameters: upload))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "video/mp4")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Length"), "12345")
        XCTAssertNil(request.httpBody)
        guard case .file(let url)? = RequestBuilder.streamedBody(of: upload, for: request) else {
            return XCTFail("expected the file to be streamed")
        }
        XCTAssertEqual(url, file)
    }

    func testUploadFile_defaultType_isOctetStream() throws {
        let file = try makeFile("dump", contents: Data())
        let request = try specRequest(SpecEndpoint("/dumps", method: .put, parameters: UploadFile(file)))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/octet-stream")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Length"), "0")
    }

    func testUploadFile_contentTypeHeader_wins() throws {
        let file = try makeFile("a.bin", contents: Data([1, 2]))
        let endpoint = SpecEndpoint(
            "/files", method: .post, parameters: UploadFile(file, contentType: "video/mp4"),
            headers: ["Content-Type": "application/x-tar"])
        XCTAssertEqual(try specRequest(endpoint).value(forHTTPHeaderField: "Content-Type"), "application/x-tar")
    }

    func testUploadFile_throughASymbolicLink_measuresTheTarget() throws {
        let file = try makeFile("real.bin", contents: patternedBytes(count: 321))
        let link = directory.appendingPathComponent("link.bin")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        let request = try specRequest(SpecEndpoint("/files", method: .post, parameters: UploadFile(link)))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Length"), "321")
    }

    func testMissingFile_throwsEncodingNamingItWithTheCause() {
        let missing = directory.appendingPathComponent("missing.mp4")
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/videos", method: .post, parameters: UploadFile(missing)))
        }
        XCTAssertEqual(failure?.reason, "the file \(missing.path) does not exist")
        XCTAssertEqual((failure?.underlying as? CocoaError)?.code, .fileReadNoSuchFile)
    }

    func testDirectory_throwsEncodingNamingIt() throws {
        let folder = try makeDirectory("videos")
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/videos", method: .post, parameters: UploadFile(folder)))
        }
        XCTAssertEqual(failure?.reason, "the file \(folder.path) is a directory")
        XCTAssertEqual((failure?.underlying as? POSIXError)?.code, .EISDIR)
    }

    func testNonFileURL_throwsEncoding() throws {
        let remote = try XCTUnwrap(URL(string: "https://example.com/a.mp4"))
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/videos", method: .post, parameters: UploadFile(remote)))
        }
        XCTAssertEqual(failure?.reason, "the file https://example.com/a.mp4 is not a file URL")
    }

    func testUploadFile_onGET_throwsEncoding() throws {
        let file = try makeFile("a.bin", contents: Data([1]))
        let failure = specEncodingError {
            _ = try specRequest(SpecEndpoint("/files", method: .get, parameters: UploadFile(file)))
        }
        XCTAssertEqual(failure?.reason.contains("GET cannot carry a body, so UploadFile cannot be sent"), true)
    }

    func testMissingFile_failsBeforeAnythingIsSent() throws {
        let upload = UploadFile(directory.appendingPathComponent("gone.bin"))
        let failure = try pipelineEncodingFailure(SpecEndpoint("/files", method: .post, parameters: upload))
        XCTAssertEqual(failure?.reason.contains("gone.bin does not exist"), true, failure?.reason ?? "")
    }
}
