import Foundation
import LeashDigest
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `/upload`.
final class UploadRoutesTests: LoopbackTestCase {
    func testUpload_reportsLengthDigestTypeAndFraming() throws {
        let server = try makeServer()
        var request = URLRequest(url: server.url(path: "/upload"))
        request.httpMethod = "PUT"
        request.httpBody = Data("abc".utf8)
        request.setValue("text/plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(
            try decode(LoopbackServer.ReceivedUpload.self, from: result.data),
            LoopbackServer.ReceivedUpload(
                bytes: 3, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                contentType: "text/plain; charset=utf-8", chunked: false))
        XCTAssertEqual(
            result.text,
            #"{"bytes":3,"chunked":false,"contentType":"text\/plain; charset=utf-8","#
                + #""sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}"#)

        let client = try RawClient(port: server.port)
        try client.send("POST /upload?sha256=0 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
        XCTAssertEqual(
            try client.readJSON(LoopbackServer.ReceivedUpload.self),
            LoopbackServer.ReceivedUpload(bytes: 3, sha256: "", contentType: "", chunked: false))
        try client.send("POST /upload HTTP/1.1\r\n\r\n")
        XCTAssertEqual(
            try client.readJSON(LoopbackServer.ReceivedUpload.self),
            LoopbackServer.ReceivedUpload(bytes: 0, sha256: SHA256.hexDigest(Data()), contentType: "", chunked: false))
    }
}
