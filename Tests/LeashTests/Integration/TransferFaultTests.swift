import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Faults of transfers over the default transport: bodies shorter or longer than their
/// `Content-Length`, a connection dropped mid-upload and mid-download, a slow body against
/// an idle limit, and multipart names that try to break out of their header.
final class TransferFaultTests: LoopbackIntegrationCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self).url
    }

    private var destination: URL { folder.appendingPathComponent("file.bin") }

    private func download(_ client: Client, _ path: String) throws -> [ExecutionEvent<URL>] {
        try client.downloadEventStream(SpecEndpoint(path), to: destination).toBlocking(timeout: 20).toArray()
    }

    func testBodyShorterThanItsContentLength_failsInTransport_andLeavesNoFile() throws {
        let before = transferFiles()
        let client = try makeClient()
        XCTAssertThrowsError(try download(client, "/bytes/1000000?dropAfter=300000")) { error in
            guard case .transport? = error as? LeashError else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(transferFiles(), before)
    }

    func testBodyLongerThanItsContentLength_keepsTheAnnouncedBytesOnly() throws {
        // A head announcing 10 bytes, followed by 30: what follows the 10 is not the body.
        let raw =
            Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n".utf8)
            + Data("0123456789".utf8) + Data(repeating: UInt8(ascii: "x"), count: 20)
        server.route("GET", "/overlong", response: .garbage(raw))
        let client = try makeClient()
        let events = try download(client, "/overlong")
        XCTAssertEqual(events.compactMap(\.value), [destination])
        XCTAssertEqual(try Data(contentsOf: destination), Data("0123456789".utf8))
    }

    /// Twenty times: URLSession's own file uploads crashed the process in about one of five
    /// such drops on Linux (see `URLSessionTransfers.swift`).
    func testConnectionDroppedMidUpload_failsInTransport_neverCrashes() throws {
        let upload = folder.appendingPathComponent("upload.bin")
        try Data(repeating: 7, count: 8_000_000).write(to: upload)
        server.route(
            .streaming("POST", "/drops") { _, body in
                // Read a little, then close without answering.
                _ = try? body.readNext { _ in }
                return .garbage(Data())
            })
        let client = try makeClient()
        for _ in 0..<20 {
            XCTAssertThrowsError(
                try client.uploadEventStream(
                    SpecEndpoint("/drops", method: .post, parameters: UploadFile(upload)),
                    serializer: DataResponseSerializer()
                ).toBlocking(timeout: 20).toArray()
            ) { error in
                guard case .transport? = error as? LeashError else { return XCTFail("\(error)") }
            }
        }
    }

    func testTrickledBody_outlastingTheIdleLimitBetweenChunks_timesOut_andLeavesNoFile() throws {
        let before = transferFiles()
        let client = try makeClient { $0.idleTimeout(0.2) }
        XCTAssertThrowsError(try download(client, "/bytes/100000?chunk=1000&interval=500")) { error in
            guard case .timeout(let seconds)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertEqual(seconds, 0.2)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(transferFiles(), before)
    }

    func testTrickledBody_withinTheIdleLimit_completes_althoughItLastsLongerThanTheLimit() throws {
        let client = try makeClient { $0.idleTimeout(0.5) }
        let events = try download(client, "/bytes/8000?chunk=1000&interval=100")
        XCTAssertEqual(events.compactMap(\.value), [destination])
        XCTAssertEqual(try Data(contentsOf: destination), LoopbackServer.patternBytes(in: 0..<8000))
    }

    func testMultipartNames_withQuotesLineBreaksAndNonASCII_areEscaped_neverInjected() throws {
        let form = MultipartFormData()
        form.append("v", name: "a\"b\r\nX-Injected: yes")
        form.append(Data("file".utf8), name: "doc", fileName: "ünï\"code\r\n.txt", mimeType: "text/plain")
        let client = try makeClient()
        let answer = try client.uploadEventStream(
            SpecEndpoint("/multipart", method: .post, parameters: form), as: LoopbackServer.ReceivedMultipart.self
        ).toBlocking(timeout: 10).toArray().compactMap(\.value).last
        let parts = try XCTUnwrap(answer).parts
        XCTAssertEqual(parts.map(\.name), ["a%22b%0D%0AX-Injected: yes", "doc"])
        XCTAssertEqual(parts.last?.fileName, "ünï%22code%0D%0A.txt")
        XCTAssertEqual(parts.count, 2, "no part or header was injected")
    }
}
