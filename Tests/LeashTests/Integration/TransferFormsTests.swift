import Dispatch
import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The callback and `async` forms of uploads and downloads over the default
/// `URLSessionTransport`, against `LoopbackServer`: the completion called once, progress
/// that only grows and ends complete, the queue honoured, and cancelling (the handle's
/// `cancel()`, or the task's) leaving nothing behind.
final class TransferFormsTests: LoopbackIntegrationCase {
    private var folder: TransferTestFolder!
    private var queue: DispatchQueue!
    private let onQueue = DispatchSpecificKey<Bool>()

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self)
        queue = DispatchQueue(label: "leash.tests.transfer-forms")
        queue.setSpecific(key: onQueue, value: true)
    }

    private var destination: URL { folder.file("downloads/file.bin") }

    /// A client whose transfers are recorded, to find the temporary files they used.
    private func recordingClient() throws -> (Client, TransferRecordingTransport) {
        let recorder = TransferRecordingTransport(URLSessionTransport())
        return (try makeClient { $0.transport(recorder) }, recorder)
    }

    // MARK: Callbacks

    func testDownloadCallback_callsTheCompletionOnce_withTheFileInPlace() throws {
        let client = try makeClient()
        let done = expectation(description: "completion")
        let outcomes = SpecLocked<[Response<URL>]>([])

        client.download(SpecEndpoint("/large/300000"), to: destination, queue: queue) { response in
            outcomes.withLock { $0.append(response) }
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        queue.sync {}  // Anything queued after the completion has run by now.

        XCTAssertEqual(outcomes.value.count, 1)
        XCTAssertEqual(outcomes.value.first?.value, destination)
        XCTAssertEqual(try Data(contentsOf: destination), loopbackLargeBody(300_000))
    }

    func testDownloadCallback_reportsProgressThatOnlyGrows_endingWithEveryByte() throws {
        let client = try makeClient()
        let done = expectation(description: "completion")
        let progress = SpecLocked<[TransferProgress]>([])
        let progressAfterCompletion = SpecLocked(0)
        let completed = SpecLocked(false)

        client.download(
            SpecEndpoint("/large/3000000"), to: destination,
            progress: { step in
                if completed.value { progressAfterCompletion.withLock { $0 += 1 } }
                progress.withLock { $0.append(step) }
            },
            completion: { _ in
                completed.withLock { $0 = true }
                done.fulfill()
            })
        wait(for: [done], timeout: 20)

        assertTransferProgress(progress.value, endsAt: 3_000_000)
        XCTAssertEqual(progressAfterCompletion.value, 0, "every progress call comes before the completion")
    }

    func testDownloadCallback_callsProgressAndCompletionOnTheGivenQueue() throws {
        let client = try makeClient()
        let done = expectation(description: "completion")
        let calls = SpecLocked<[Bool]>([])
        let isOnQueue = { [onQueue] in DispatchQueue.getSpecific(key: onQueue) == true }

        client.download(
            SpecEndpoint("/large/1000000"), to: destination, queue: queue,
            progress: { _ in calls.withLock { $0.append(isOnQueue()) } },
            completion: { _ in
                calls.withLock { $0.append(isOnQueue()) }
                done.fulfill()
            })
        wait(for: [done], timeout: 20)

        XCTAssertGreaterThan(calls.value.count, 1, "progress and completion")
        XCTAssertEqual(calls.value.filter { !$0 }.count, 0, "every call on the queue: \(calls.value)")
    }

    func testDownloadCallback_cancel_neverCallsTheCompletion_andLeavesNoFile() throws {
        let (client, recorder) = try recordingClient()
        let completions = SpecLocked(0)

        let handle = client.download(SpecEndpoint("/hang"), to: destination, queue: queue) { _ in
            completions.withLock { $0 += 1 }
        }
        waitForServer("the request") { $0.requestCount >= 1 }
        handle.cancel()
        waitForServer("the client closing the connection") { $0.clientDisconnectCount >= 1 }
        queue.sync {}  // A completion already queued would have run by now.

        XCTAssertEqual(completions.value, 0)
        XCTAssertFalse(transferFileExists(destination))
        XCTAssertEqual(recorder.destinationFiles.count, 1)
        XCTAssertEqual(recorder.destinationFiles.filter(transferFileExists), [], "the temporary file is removed")
    }

    func testUploadCallback_reportsTheBodyGoingOut_thenCallsTheCompletionOnceWithTheAnswer() throws {
        let bytes = transferTestBytes(1_000_000)
        let client = try makeClient()
        let done = expectation(description: "completion")
        let progress = SpecLocked<[TransferProgress]>([])
        let outcomes = SpecLocked<[Response<LoopbackServer.EchoedRequest>]>([])

        client.upload(
            SpecEndpoint("/echo", method: .post, parameters: bytes), as: LoopbackServer.EchoedRequest.self,
            queue: queue, progress: { step in progress.withLock { $0.append(step) } },
            completion: { response in
                outcomes.withLock { $0.append(response) }
                done.fulfill()
            })
        wait(for: [done], timeout: 20)
        queue.sync {}

        XCTAssertEqual(outcomes.value.count, 1)
        XCTAssertEqual(outcomes.value.first?.value.flatMap { Data(base64Encoded: $0.bodyBase64) }, bytes)
        assertTransferProgress(progress.value, endsAt: 1_000_000)
    }

    // MARK: async/await

    func testAsyncDownload_returnsTheFile_reportingProgressToTheEnd() async throws {
        let client = try makeClient()
        let progress = SpecLocked<[TransferProgress]>([])

        let file = try await client.download(SpecEndpoint("/large/2000000"), to: destination) { step in
            progress.withLock { $0.append(step) }
        }

        XCTAssertEqual(file, destination)
        XCTAssertEqual(try Data(contentsOf: file), loopbackLargeBody(2_000_000))
        assertTransferProgress(progress.value, endsAt: 2_000_000)
    }

    func testAsyncUpload_sendsTheFile_andDecodesTheAnswer_reportingProgressToTheEnd() async throws {
        let bytes = transferTestBytes(1_500_000)
        let file = folder.file("upload.bin")
        try bytes.write(to: file)
        let client = try makeClient()
        let progress = SpecLocked<[TransferProgress]>([])

        let echoed = try await client.upload(
            SpecEndpoint("/echo", method: .post, parameters: UploadFile(file, contentType: "application/octet-stream")),
            as: LoopbackServer.EchoedRequest.self
        ) { step in
            progress.withLock { $0.append(step) }
        }

        XCTAssertEqual(echoed.method, "POST")
        XCTAssertEqual(Data(base64Encoded: echoed.bodyBase64), bytes)
        assertTransferProgress(progress.value, endsAt: 1_500_000)
    }

    func testAsyncDownload_cancellingTheTask_endsWithCancelled_andLeavesNoFile() async throws {
        let (client, recorder) = try recordingClient()
        let destination = self.destination

        let task = Task { try await client.download(SpecEndpoint("/hang"), to: destination) }
        waitForServer("the request") { $0.requestCount >= 1 }
        task.cancel()
        let result = await task.result

        guard case .failure(let error) = result, case .cancelled? = error as? LeashError else {
            return XCTFail("expected LeashError.cancelled, got \(result)")
        }
        XCTAssertFalse(transferFileExists(destination))
        XCTAssertEqual(recorder.destinationFiles.count, 1)
        XCTAssertEqual(recorder.destinationFiles.filter(transferFileExists), [], "the temporary file is removed")
        waitForServer("the client closing the connection") { $0.clientDisconnectCount >= 1 }
    }
}
