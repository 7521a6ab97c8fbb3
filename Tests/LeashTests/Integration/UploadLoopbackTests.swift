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

/// Uploads over the default `URLSessionTransport`, against `LoopbackServer`'s `/echo`:
/// the bytes that arrive, the progress reported, files streamed from disk, large forms
/// staged and removed, and a retry that sends the file again.
final class UploadLoopbackTests: LoopbackIntegrationCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self).url
    }

    private func bytes(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    }

    private func file(_ data: Data, named name: String = "upload.bin") throws -> URL {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    private func upload(_ client: Client, _ endpoint: Endpoint) throws -> [ExecutionEvent<LoopbackServer.EchoedRequest>]
    {
        try client.uploadEventStream(endpoint, as: LoopbackServer.EchoedRequest.self).toBlocking(timeout: 20).toArray()
    }

    private func uploadProgress<Value>(_ events: [ExecutionEvent<Value>]) -> [TransferProgress] {
        events.compactMap { event in
            if case .uploadProgress(let progress) = event { return progress }
            return nil
        }
    }

    func testData_isSentAsItsRawBytes_withItsContentType() throws {
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + bytes(1000)
        let client = try makeClient()
        let echoed = try echo(
            client, SpecEndpoint("/echo", method: .post, parameters: jpeg, headers: ["Content-Type": "image/jpeg"]))
        XCTAssertEqual(Data(base64Encoded: echoed.bodyBase64), jpeg, "never JSON, never base64")
        XCTAssertEqual(echoed.headers["content-type"], "image/jpeg")
    }

    func testUploadFile_streamsTheFile_reportingProgressUpToEveryByte() throws {
        let data = bytes(3_000_000)
        let url = try file(data)
        let client = try makeClient()
        let events = try upload(
            client, SpecEndpoint("/echo", method: .post, parameters: UploadFile(url, contentType: "video/mp4")))

        guard let echoed = events.compactMap(\.value).last else { return XCTFail("no value") }
        XCTAssertEqual(Data(base64Encoded: echoed.bodyBase64), data)
        XCTAssertEqual(echoed.headers["content-type"], "video/mp4")
        XCTAssertEqual(echoed.headers["content-length"], "3000000")
        XCTAssertNil(echoed.headers["transfer-encoding"], "framed by its length, not chunked")
        let progress = uploadProgress(events)
        XCTAssertEqual(progress.last, TransferProgress(completedBytes: 3_000_000, expectedBytes: 3_000_000))
        XCTAssertEqual(progress.map(\.completedBytes), progress.map(\.completedBytes).sorted())
    }

    func testUploadFile_missing_failsBeforeAnyTraffic() throws {
        let client = try makeClient()
        let missing = folder.appendingPathComponent("nope.bin")
        XCTAssertThrowsError(
            try upload(client, SpecEndpoint("/echo", method: .post, parameters: UploadFile(missing)))
        ) { error in
            guard case .encoding(let reason, let underlying)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("nope.bin"), reason)
            XCTAssertNotNil(underlying)
        }
        XCTAssertEqual(server.counters.requestCount, 0)
    }

    func testLargeMultipartForm_isStagedToAFile_sentWhole_andTheFileRemoved() throws {
        let before = transferFiles()
        let photo = bytes(300_000)
        let photoURL = try file(photo, named: "photo.jpg")
        let form = MultipartFormData(boundary: "leash-test-boundary")
        form.encodingMemoryThreshold = 1000
        form.append("Ada", name: "name")
        form.append(fileAt: photoURL, name: "photo")
        let client = try makeClient()

        let events = try upload(client, SpecEndpoint("/echo", method: .post, parameters: form))

        guard let echoed = events.compactMap(\.value).last, let body = Data(base64Encoded: echoed.bodyBase64) else {
            return XCTFail("no value")
        }
        XCTAssertEqual(echoed.headers["content-type"], "multipart/form-data; boundary=leash-test-boundary")
        XCTAssertEqual(echoed.headers["content-length"], "\(body.count)")
        XCTAssertTrue(body.starts(with: Data("--leash-test-boundary\r\n".utf8)))
        XCTAssertTrue(body.suffix(25) == Data("\r\n--leash-test-boundary--\r\n".utf8).suffix(25))
        XCTAssertNotNil(body.range(of: photo), "the file's bytes are in the body, whole")
        XCTAssertEqual(uploadProgress(events).last?.completedBytes, Int64(body.count))
        XCTAssertEqual(transferFiles(), before, "the staged body is removed")
    }

    func testRetryAfter401_sendsTheFileAgain() throws {
        let data = bytes(200_000)
        let url = try file(data)
        let received = SpecLocked<[Data]>([])
        server.route(
            .post("/guarded") { request in
                let count = received.withLock { bodies -> Int in
                    bodies.append(request.body)
                    return bodies.count
                }
                return count == 1 ? .status(401) : .json(Data("{}".utf8))
            })
        let client = try makeClient { $0.add(interceptor: RetryOnceOn401()) }

        _ = try client.uploadEventStream(
            SpecEndpoint("/guarded", method: .post, parameters: UploadFile(url)), serializer: DataResponseSerializer()
        ).toBlocking(timeout: 20).toArray()

        let bodies = received.value
        XCTAssertEqual(bodies.count, 2)
        XCTAssertEqual(bodies.first, data)
        XCTAssertEqual(bodies.last, data, "the retry re-sent the file from disk")
    }

    func testFormURLEncoded_isSentAsAForm() throws {
        let client = try makeClient { $0.arrayEncoding(.noBrackets).boolEncoding(.numeric) }
        let echoed = try echo(
            client,
            SpecEndpoint(
                "/echo", method: .post,
                parameters: FormURLEncoded(["grant_type": "refresh_token", "scope": ["a", "b"], "remember": true])))
        XCTAssertEqual(echoed.body, "grant_type=refresh_token&remember=1&scope=a&scope=b")
        XCTAssertEqual(echoed.headers["content-type"], "application/x-www-form-urlencoded; charset=utf-8")
    }
}

/// Retries once when the server answers 401 (as a token refresh would).
private struct RetryOnceOn401: CompletionInterceptor {
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        guard (response.error as? LeashError)?.isUnauthorized == true, chain.attempt == 1 else {
            return chain.proceed()
        }
        do {
            try chain.retry()
        } catch {
            chain.complete(with: error)
        }
    }
}
