import Dispatch
import Foundation
import LeashTestSupport
import LeashTesting
import LoopbackServer
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `client.rx.download` and `client.rx.upload` in virtual time: `Transfer` elements at
/// their ticks (`.progress`, then `.completed` with the value), typed errors, and
/// disposing. The base class checks that every Rx resource is freed.
final class ClientRxTransferTests: VirtualTimeTransferCase {
    private func progress(_ completed: Int64, of expected: Int64) -> Transfer<URL> {
        .progress(TransferProgress(completedBytes: completed, expectedBytes: expected))
    }

    private func client() throws -> Client {
        try makeClientRxClient(transport, scheduler: scheduler)
    }

    func testDownload_emitsProgressAtEachTick_thenTheFile() throws {
        transport.stub(.get, path: "/v1/file", StubResponse(body: body).progress(steps: 4))
        let client = try client()
        let destination = self.destination

        let observer = scheduler.start { client.rx.download(ClientRxEndpoint("/file"), to: destination) }

        XCTAssertEqual(
            observer.events,
            [
                .next(200, progress(100, of: 400)), .next(201, progress(200, of: 400)),
                .next(202, progress(300, of: 400)), .next(203, progress(400, of: 400)),
                .next(203, .completed(destination)), .completed(203),
            ])
        XCTAssertEqual(try Data(contentsOf: destination), body)
    }

    func testUpload_emitsTheBodysProgress_thenTheDecodedResponse() throws {
        // The answer's own body arrives in four steps too (203…206): not upload progress.
        transport.stub(.post, path: "/v1/users", StubResponse.json(specAliceJSON).progress(steps: 4))
        let client = try client()
        let upload = ClientRxUploadEndpoint(path: "/users", parameters: transferTestBytes(400))

        let observer = scheduler.start { client.rx.upload(upload, type: SpecUser.self) }

        let sent = { (bytes: Int64) in
            Transfer<SpecUser>.progress(TransferProgress(completedBytes: bytes, expectedBytes: 400))
        }
        XCTAssertEqual(
            observer.events,
            [
                .next(200, sent(100)), .next(201, sent(200)), .next(202, sent(300)), .next(203, sent(400)),
                .next(206, .completed(specAlice)), .completed(206),
            ])
    }

    func testDownload_unacceptableStatus_failsWithTheTypedError_andLeavesNoFile() throws {
        transport.stub(.get, path: "/v1/file", .json(#"{"error":"gone"}"#, status: 404, delay: 2))
        let client = try client()
        let destination = self.destination

        let observer = scheduler.start { client.rx.download(ClientRxEndpoint("/file"), to: destination) }

        XCTAssertEqual(observer.events.last?.time, 202)
        XCTAssertFalse(observer.events.contains { $0.value.element?.value != nil }, "no file to complete with")
        XCTAssertEqual(observer.events.count, 1, "no progress for the error page: the bar does not fill")
        guard case .unacceptableStatusCode(let failure)? = clientRxError(observer) as? LeashError else {
            return XCTFail("expected LeashError.unacceptableStatusCode, got \(observer.events)")
        }
        XCTAssertEqual(failure.statusCode, 404)
        XCTAssertEqual(failure.body, Data(#"{"error":"gone"}"#.utf8), "the error page is kept, in memory")
        XCTAssertFalse(transferFileExists(destination))
    }

    func testDownload_destinationUnderARegularFile_failsWithFileAccess_onceTheBodyIsIn() throws {
        transport.stub(.get, path: "/v1/file", StubResponse(body: body).progress(steps: 2))
        let client = try client()
        let blocker = folder.file("blocker")
        try Data("x".utf8).write(to: blocker)
        let destination = blocker.appendingPathComponent("file.bin")

        let observer = scheduler.start { client.rx.download(ClientRxEndpoint("/file"), to: destination) }

        XCTAssertEqual(observer.events.compactMap(\.value.element), [progress(200, of: 400), progress(400, of: 400)])
        XCTAssertEqual(observer.events.last?.time, 201)
        guard case .fileAccess(_, let url, let underlying)? = clientRxError(observer) as? LeashError else {
            return XCTFail("expected LeashError.fileAccess, got \(observer.events)")
        }
        XCTAssertEqual(url, destination)
        XCTAssertNotNil(underlying, "the file system's error is kept")
        XCTAssertEqual(try Data(contentsOf: blocker), Data("x".utf8), "the file in the way is left as it was")
    }

    func testDownload_disposedMidway_stopsTheElements_andLeavesNoFile() throws {
        transport.stub(.get, path: "/v1/file", StubResponse(body: body).progress(steps: 4))
        let client = try client()
        let destination = self.destination

        let observer = scheduler.start(disposed: 202) {
            client.rx.download(ClientRxEndpoint("/file"), to: destination)
        }

        XCTAssertEqual(observer.events, [.next(200, progress(100, of: 400)), .next(201, progress(200, of: 400))])
        XCTAssertFalse(transferFileExists(destination))
    }
}

/// `client.rx.download` over the default `URLSessionTransport` against `LoopbackServer`,
/// in real time.
final class ClientRxTransferLoopbackTests: LoopbackIntegrationCase {
    private var folder: TransferTestFolder!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self)
    }

    func testDownload_slowSubscriber_isNotAStall_theDownloadCompletes() throws {
        // 0.2 s without bytes ends a download; the subscriber spends 0.3 s on each of its
        // first three progress elements (more would only make the test long: each element
        // after a pause is due for reporting at once).
        let slowElements = SpecLocked(3)
        let client = try makeClient { $0.timeout(0.2) }
        let destination = folder.file("large.bin")
        let finished = expectation(description: "the download ended")
        let elements = SpecLocked<[Transfer<URL>]>([])
        let failure = SpecLocked<Error?>(nil)

        let subscription = client.rx.download(ClientRxEndpoint("/large/2000000"), to: destination)
            .subscribe(
                onNext: { element in
                    elements.withLock { $0.append(element) }
                    let isSlow = slowElements.withLock { remaining -> Bool in
                        remaining -= 1
                        return element.progress != nil && remaining >= 0
                    }
                    // The app's own work, not a wait for a result.
                    if isSlow { Thread.sleep(forTimeInterval: 0.3) }
                },
                onError: { error in
                    failure.withLock { $0 = error }
                    finished.fulfill()
                },
                onCompleted: { finished.fulfill() })
        wait(for: [finished], timeout: 60)
        subscription.dispose()

        XCTAssertNil(failure.value, "a slow subscriber is not a stall of the network")
        XCTAssertEqual(elements.value.last, .completed(destination))
        XCTAssertEqual(elements.value.compactMap(\.progress).last?.isComplete, true)
        XCTAssertEqual(try Data(contentsOf: destination).count, 2_000_000)
    }

    func testDownload_onAQueue_deliversEveryElementThere() throws {
        let client = try makeClient()
        let destination = folder.file("small.bin")
        let queue = DispatchQueue(label: "leash.tests.rx-transfer")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let offQueue = SpecLocked(0)

        let elements = try client.rx.download(ClientRxEndpoint("/large/300000"), to: destination, queue: queue)
            .do(onNext: { _ in
                if DispatchQueue.getSpecific(key: key) != true { offQueue.withLock { $0 += 1 } }
            })
            .toBlocking(timeout: 20).toArray()

        XCTAssertEqual(offQueue.value, 0, "every element on the given queue")
        XCTAssertEqual(elements.last, .completed(destination))
        XCTAssertEqual(try Data(contentsOf: destination), loopbackLargeBody(300_000))
    }
}

/// An upload: `POST` with `parameters` as its body.
private struct ClientRxUploadEndpoint: Endpoint {
    var path: String
    var method: HTTPMethod { .post }
    var parameters: Any?
}
