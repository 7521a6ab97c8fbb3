import Foundation
import LeashDigest
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `/upload` and `/multipart`.
final class UploadRoutesTests: LoopbackTestCase {
    private typealias Part = LoopbackServer.ReceivedMultipart.Part

    private struct FailureBody: Decodable {
        let error: String
        let reason: String
        let status: Int
    }

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

    func testMultipart_reportsFileAndTextPartsWithNamesAsSent() throws {
        let server = try makeServer()
        let file = LoopbackServer.patternBytes(in: 0..<5000)
        let longText = String(repeating: "x", count: 1025)
        var body = Data()
        body.append(Data("preamble to ignore\r\n".utf8))
        body.append(Data("--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello, world\r\n".utf8))
        body.append(
            Data(
                ("--XyZ\r\nContent-Disposition: form-data; name=\"up%22load\"; filename=\"a%22b%0D%0Ac.bin\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n").utf8))
        body.append(file)
        body.append(Data("\r\n--XyZ\r\ncontent-disposition: FORM-DATA; name=long\r\n\r\n\(longText)".utf8))
        body.append(Data("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"empty\"; filename=\"\"\r\n\r\n".utf8))
        body.append(Data("\r\n--XyZ--\r\nepilogue to ignore".utf8))

        var request = URLRequest(url: server.url(path: "/multipart"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=XyZ", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(result.status, 200, result.text ?? "")
        let parts = try decode(LoopbackServer.ReceivedMultipart.self, from: result.data).parts
        XCTAssertEqual(
            parts,
            [
                Part(
                    name: "title", fileName: nil, contentType: nil, bytes: 12,
                    sha256: SHA256.hexDigest("Hello, world".utf8), value: "Hello, world"),
                Part(
                    name: "up%22load", fileName: "a%22b%0D%0Ac.bin", contentType: "application/octet-stream",
                    bytes: 5000, sha256: SHA256.hexDigest(file), value: nil),
                Part(
                    name: "long", fileName: nil, contentType: nil, bytes: 1025, sha256: SHA256.hexDigest(longText.utf8),
                    value: nil),
                Part(
                    name: "empty", fileName: "", contentType: nil, bytes: 0, sha256: SHA256.hexDigest(Data()),
                    value: nil),
            ])
        XCTAssertTrue(result.text?.contains(#""fileName":null"#) == true, "absent fields are null, not left out")
    }

    func testMultipart_keepsBackslashesAndQuotedBoundaries() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let body =
            "--a b\r\nContent-Disposition: form-data; name=\"q\\\"x\"; filename=\"c:\\\\d.txt\"\r\n\r\n1\r\n--a b--"
        try client.send(
            "POST /multipart HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=\"a b\"\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let parts = try client.readJSON(LoopbackServer.ReceivedMultipart.self).parts
        XCTAssertEqual(parts.map(\.name), [#"q\"x"#])
        XCTAssertEqual(parts.map(\.fileName), [#"c:\\d.txt"#])
    }

    func testMultipart_sentAsChunksOfSevenBytes_isParsedAcrossReads() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let body = Array(
            ("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x\"\r\n\r\n"
                + String(repeating: "\r\n--", count: 20)
                + "\r\n--b\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nv"
                + "\r\n--b--\r\n").utf8)
        try client.send(
            "POST /multipart HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        for start in stride(from: 0, to: body.count, by: 7) {
            try client.sendChunk(Data(body[start..<min(start + 7, body.count)]))
        }
        try client.send("0\r\n\r\n")
        let parts = try client.readJSON(LoopbackServer.ReceivedMultipart.self).parts
        XCTAssertEqual(parts.map(\.name), ["f", "t"])
        XCTAssertEqual(parts.first?.bytes, 80)
        XCTAssertEqual(parts.last?.value, "v")
    }

    func testMalformedMultipart_answers400WithAReasonAndKeepsTheConnection() throws {
        let server = try makeServer()
        let client = try RawClient(port: server.port)
        let cases: [(contentType: String, body: String, reason: String)] = [
            ("text/plain", "", "not multipart/form-data"),
            ("multipart/form-data", "", "no boundary"),
            ("multipart/form-data; boundary=" + String(repeating: "b", count: 71), "", "1 to 70"),
            (
                "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end",
                "ended before"
            ),
            ("multipart/form-data; boundary=b", "no delimiter at all", "ended before"),
            (
                "multipart/form-data; boundary=b", "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--",
                "no Content-Disposition"
            ),
            (
                "multipart/form-data; boundary=b",
                "--b\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n--b--", "not form-data"
            ),
            (
                "multipart/form-data; boundary=b",
                "--b\r\nContent-Disposition: form-data; filename=\"a\"\r\n\r\nx\r\n--b--", "no name"
            ),
            (
                "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\r\n\r\nx\r\n--b--",
                "not form-data"
            ),
            (
                "multipart/form-data; boundary=b", "--bX\r\nContent-Disposition: form-data; name=a\r\n\r\nx\r\n--b--",
                "other bytes"
            ),
            ("multipart/form-data; boundary=b", "--b\r\nno colon\r\n\r\nx\r\n--b--", "malformed header line"),
        ]
        for (contentType, body, reason) in cases {
            try client.send(
                "POST /multipart HTTP/1.1\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 400, body)
            let failure = try JSONDecoder().decode(FailureBody.self, from: Data(response.body))
            XCTAssertTrue(failure.reason.contains(reason), "\(failure.reason) for \(body.debugDescription)")
            XCTAssertEqual(failure.error, "Bad Request")
            XCTAssertEqual(response.headers["Connection"], "keep-alive", "the body was read to its end")
        }
        XCTAssertEqual(server.counters.connectionCount, 1)
    }

    func testMultipart_headerBlockLargerThan16KB_isRefused() throws {
        let server = try makeServer()
        let body = "--b\r\nX-Filler: " + String(repeating: "f", count: 20_000) + "\r\n\r\nx\r\n--b--"
        var request = URLRequest(url: server.url(path: "/multipart"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=b", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let result = fetch(request, on: makeSession())
        XCTAssertEqual(result.status, 400)
        XCTAssertTrue(result.text?.contains("16 KB") == true, result.text ?? "")
    }
}
