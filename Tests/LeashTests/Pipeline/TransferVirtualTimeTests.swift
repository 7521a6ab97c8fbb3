import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads and downloads through the whole pipeline in virtual time: `StubTransport`
/// plays each progress step at its tick of the test's `TestScheduler`, which is also the
/// manager's clock (timeouts, idle limits, progress throttling). One tick is one second
/// unless a test says otherwise.
final class TransferVirtualTimeTests: VirtualTimeTransferCase {
    private func client(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makePipelineClient(transport, scheduler: scheduler, configure: configure)
    }

    private func download(
        _ client: Client, _ endpoint: Endpoint = PipelineEndpoint(path: "/file"), disposed: TestTime = 1000
    ) -> TestableObserver<ExecutionEvent<URL>> {
        let destination = self.destination
        return scheduler.start(disposed: disposed) { client.downloadEventStream(endpoint, to: destination) }
    }

    /// `count` steps of `body`, `interval` apart.
    private func stepped(_ count: Int, every interval: TimeInterval) -> StubResponse {
        StubResponse(body: body).progress(steps: count, every: interval)
    }

    private func assertTimedOut<Value>(
        _ observer: TestableObserver<ExecutionEvent<Value>>, seconds: TimeInterval, at tick: TestTime,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        guard case .timeout(let limit)? = pipelineError(observer) as? LeashError else {
            return XCTFail("expected LeashError.timeout, got \(pipelineTimeline(observer))", file: file, line: line)
        }
        XCTAssertEqual(limit, seconds, file: file, line: line)
        XCTAssertEqual(observer.events.last?.time, tick, "the limit fires at its exact tick", file: file, line: line)
    }

    // MARK: Timelines

    func testDownload_reportsEachProgressStepAtItsTick_thenMovesTheFileIntoPlace() throws {
        transport.stub(.get, path: "/v1/file", stepped(4, every: 1))
        let client = try client()

        let observer = download(client)

        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "downloadProgress(100/400) @ 200",
                "downloadProgress(200/400) @ 201", "downloadProgress(300/400) @ 202",
                "downloadProgress(400/400) @ 203", "responseReceived(200, 1) @ 203",
                "value(\(destination), network) @ 203", "completed @ 203",
            ])
        XCTAssertEqual(try Data(contentsOf: destination), body)
    }

    func testUpload_reportsEachStepOfTheBodyAtItsTick_thenTheDecodedResponse() throws {
        transport.stub(.post, path: "/v1/users", StubResponse.json(specAliceJSON).progress(steps: 4))
        let client = try client()
        let upload = PipelineEndpoint(path: "/users", method: .post, parameters: transferTestBytes(400))

        let observer = scheduler.start { client.uploadEventStream(upload, as: SpecUser.self) }

        // The body goes out in four steps; then the 23-byte answer arrives in four more.
        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "uploadProgress(100/400) @ 200",
                "uploadProgress(200/400) @ 201", "uploadProgress(300/400) @ 202", "uploadProgress(400/400) @ 203",
                "downloadProgress(5/23) @ 203", "downloadProgress(11/23) @ 204", "downloadProgress(17/23) @ 205",
                "downloadProgress(23/23) @ 206", "responseReceived(200, 1) @ 206",
                "value(\(specAlice), network) @ 206", "completed @ 206",
            ])
        XCTAssertEqual(transport.requests.first?.httpBody, transferTestBytes(400), "the raw bytes were sent")
    }

    // MARK: Resuming

    func testDownload_droppedHalfway_isResumedByTheRetryWithRange_andTheFileHoldsExactlyTheBody() throws {
        transport.stub(
            .get, path: "/v1/file", stepped(4, every: 1).dropping(after: 200),
            stepped(4, every: 1).acceptingRanges())
        let client = try client { $0.add(interceptor: RetryOnTransportFailure()) }

        let observer = download(client)

        XCTAssertEqual(try Data(contentsOf: destination), body, "200 bytes kept, 200 appended: no byte twice")
        XCTAssertEqual(transport.requests.map { $0.value(forHTTPHeaderField: "Range") }, [nil, "bytes=200-"])
        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "downloadProgress(100/400) @ 200",
                "downloadProgress(200/400) @ 201", "retrying(2) @ 203", "requestPrepared(2) @ 203",
                "requestSent(2) @ 203", "downloadProgress(250/400) @ 203", "downloadProgress(300/400) @ 204",
                "downloadProgress(350/400) @ 205", "downloadProgress(400/400) @ 206",
                "responseReceived(206, 2) @ 206", "value(\(destination), network) @ 206", "completed @ 206",
            ])
    }

    func testDownload_200AnsweredToARange_startsTheFileOver() throws {
        transport.stub(
            .get, path: "/v1/file", stepped(4, every: 1).dropping(after: 200), stepped(4, every: 1))
        let client = try client { $0.add(interceptor: RetryOnTransportFailure()) }

        let observer = download(client)

        XCTAssertEqual(transport.requests.last?.value(forHTTPHeaderField: "Range"), "bytes=200-", "it asked")
        XCTAssertEqual(try Data(contentsOf: destination), body, "the 200's body replaced the partial bytes")
        XCTAssertEqual(
            pipelineTimeline(observer).suffix(7),
            [
                "downloadProgress(100/400) @ 203", "downloadProgress(200/400) @ 204", "downloadProgress(300/400) @ 205",
                "downloadProgress(400/400) @ 206", "responseReceived(200, 2) @ 206",
                "value(\(destination), network) @ 206", "completed @ 206",
            ],
            "the progress starts over from the 200's first bytes")
    }

    // MARK: Time limits

    func testIdleTimeout_stepsFurtherApartThanTheLimit_failsAtTheExactTick() throws {
        transport.stub(.get, path: "/v1/file", stepped(4, every: 3))
        let client = try client { $0.idleTimeout(2) }

        let observer = download(client)

        assertTimedOut(observer, seconds: 2, at: 202)
        XCTAssertEqual(
            pipelineTimeline(observer).dropLast(),
            ["requestPrepared(1) @ 200", "requestSent(1) @ 200", "downloadProgress(100/400) @ 200"])
        XCTAssertFalse(transferFileExists(destination))
    }

    func testIdleTimeout_stepsCloserThanTheLimit_succeeds_althoughTheWholeDownloadTakesLonger() throws {
        transport.stub(.get, path: "/v1/file", stepped(8, every: 1))
        let client = try client { $0.idleTimeout(2) }

        let observer = download(client)

        XCTAssertEqual(
            pipelineTimeline(observer).suffix(2), ["value(\(destination), network) @ 207", "completed @ 207"])
        XCTAssertEqual(try Data(contentsOf: destination), body)
    }

    func testEndpointIdleTimeout_overridesTheManagers() throws {
        transport.stub(.get, path: "/v1/file", stepped(4, every: 3))
        let client = try client { $0.idleTimeout(2) }

        let observer = download(client, PipelineEndpoint(path: "/file", idleTimeout: 4))

        XCTAssertEqual(
            pipelineTimeline(observer).suffix(2), ["value(\(destination), network) @ 209", "completed @ 209"])
    }

    func testIdleTimeout_uploadProgressCountsAsActivity() throws {
        transport.stub(.post, path: "/v1/users", StubResponse.json(specAliceJSON).progress(steps: 4))
        let client = try client { $0.idleTimeout(2) }
        let upload = PipelineEndpoint(path: "/users", method: .post, parameters: body)

        let observer = scheduler.start { client.uploadEventStream(upload, as: SpecUser.self) }

        XCTAssertEqual(pipelineTimeline(observer).suffix(2), ["value(\(specAlice), network) @ 206", "completed @ 206"])
    }

    func testIdleTimeout_anUploadThatStalls_failsAtTheExactTick() throws {
        transport.stub(
            .post, path: "/v1/users", StubResponse.json(specAliceJSON).progress(steps: 4, every: 3))
        let client = try client { $0.idleTimeout(2) }
        let upload = PipelineEndpoint(path: "/users", method: .post, parameters: body)

        let observer = scheduler.start { client.uploadEventStream(upload, as: SpecUser.self) }

        assertTimedOut(observer, seconds: 2, at: 202)
    }

    func testManagerTimeout_boundsEachStall_notTheWholeDownload() throws {
        transport.stub(.get, path: "/v1/file", stepped(10, every: 1))
        let client = try client { $0.timeout(2) }

        let observer = download(client)

        XCTAssertNil(pipelineError(observer), "\(pipelineTimeline(observer))")
        XCTAssertEqual(
            pipelineTimeline(observer).suffix(2), ["value(\(destination), network) @ 209", "completed @ 209"])
    }

    func testManagerTimeout_stillEndsADownloadThatStalls() throws {
        transport.stub(.get, path: "/v1/file", stepped(4, every: 5))
        let client = try client { $0.timeout(2) }

        let observer = download(client)

        assertTimedOut(observer, seconds: 2, at: 202)
    }

    func testEndpointTimeout_boundsTheWholeDownload() throws {
        transport.stub(.get, path: "/v1/file", stepped(10, every: 1))
        let client = try client { $0.timeout(2) }

        let observer = download(client, PipelineEndpoint(path: "/file", timeout: 3))

        assertTimedOut(observer, seconds: 3, at: 203)
        XCTAssertEqual(
            transferProgress(of: observer.events.compactMap(\.value.element)).map(\.completedBytes), [40, 80, 120])
        XCTAssertFalse(transferFileExists(destination))
    }

    func testEndpointTimeout_coversTheRetryOfADroppedDownload_andRemovesItsTemporaryFile() throws {
        let recorder = TransferRecordingTransport(transport)
        transport.stub(
            .get, path: "/v1/file", stepped(4, every: 1).dropping(after: 200),
            stepped(4, every: 1).acceptingRanges())
        let client = try makePipelineClient(recorder, scheduler: scheduler) {
            $0.add(interceptor: RetryOnTransportFailure())
        }

        let observer = download(client, PipelineEndpoint(path: "/file", timeout: 5))

        assertTimedOut(observer, seconds: 5, at: 205)
        XCTAssertEqual(transport.requests.count, 2, "the retry started, and the limit ended it")
        XCTAssertEqual(Set(recorder.destinationFiles).count, 1, "both attempts wrote to one temporary file")
        XCTAssertEqual(recorder.destinationFiles.filter(transferFileExists), [])
        XCTAssertFalse(transferFileExists(destination))
    }

    func testDroppedDownload_whoseRetryIsRefused_failsWithTheStatus_andLeavesNoFile() throws {
        let recorder = TransferRecordingTransport(transport)
        transport.stub(
            .get, path: "/v1/file", stepped(4, every: 1).dropping(after: 200),
            .status(503, delay: 1))
        let client = try makePipelineClient(recorder, scheduler: scheduler) {
            $0.add(interceptor: RetryOnTransportFailure())
        }

        let observer = download(client)

        guard case .unacceptableStatusCode(let failure)? = pipelineError(observer) as? LeashError else {
            return XCTFail("expected LeashError.unacceptableStatusCode, got \(pipelineTimeline(observer))")
        }
        XCTAssertEqual(failure.statusCode, 503)
        XCTAssertEqual(observer.events.last?.time, 204)
        XCTAssertEqual(recorder.destinationFiles.filter(transferFileExists), [], "the partial bytes are removed")
        XCTAssertFalse(transferFileExists(destination))
    }

    // MARK: Disposing

    func testDisposingMidDownload_leavesNoFileAtTheDestination_andRemovesTheTemporaryFile() throws {
        let recorder = TransferRecordingTransport(transport)
        transport.stub(.get, path: "/v1/file", stepped(4, every: 1))
        let client = try makePipelineClient(recorder, scheduler: scheduler)
        let midway = PipelineBox<(exists: Bool, bytes: Data?)>((false, nil))
        scheduler.scheduleAt(201) {
            guard let file = recorder.destinationFiles.first else { return }
            midway.value = (transferFileExists(file), try? Data(contentsOf: file))
        }

        let observer = download(client, disposed: 202)

        guard let temporary = recorder.destinationFiles.first else { return XCTFail("no download started") }
        XCTAssertEqual(temporary.deletingLastPathComponent().lastPathComponent, "leash-transfers")
        XCTAssertTrue(midway.value.exists, "the download was being written to a temporary file")
        XCTAssertEqual(midway.value.bytes, body.prefix(100), "the bytes arrive in the file as they come")
        XCTAssertFalse(transferFileExists(temporary), "disposing removed the temporary file")
        XCTAssertFalse(transferFileExists(destination), "nothing reached the destination")
        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "downloadProgress(100/400) @ 200",
                "downloadProgress(200/400) @ 201",
            ])
    }

    // MARK: Throttling

    func testProgress_isThrottledOnTheManagersClock_toFewerEventsThanSteps_endingComplete() throws {
        // One tick per millisecond: with the default second, `.milliseconds(10)` would round
        // to no ticks at all and every step would land one tick apart.
        scheduler = TestScheduler(initialClock: 0, resolution: 0.001)
        transport = StubTransport(scheduler: scheduler)
        transport.stub(
            .get, path: "/v1/file",
            StubResponse(body: transferTestBytes(2000)).progress(steps: 20, every: 0.01))
        let client = try client()

        let observer = download(client)

        let progress = observer.events.compactMap { recorded -> (time: TestTime, progress: TransferProgress)? in
            recorded.value.element?.transferProgress.map { (recorded.time, $0) }
        }
        // 20 steps from 200 to 390 ms; at most one report per 50 ms, plus the first and the last.
        XCTAssertEqual(progress.count, 5, "\(progress)")
        XCTAssertEqual(progress.first?.time, 200)
        XCTAssertEqual(progress.first?.progress, TransferProgress(completedBytes: 100, expectedBytes: 2000))
        XCTAssertEqual(progress.last?.time, 390)
        XCTAssertEqual(progress.last?.progress, TransferProgress(completedBytes: 2000, expectedBytes: 2000))
        for (earlier, later) in zip(progress.dropLast(), progress.dropFirst().dropLast()) {
            XCTAssertGreaterThanOrEqual(later.time - earlier.time, 50, "throttled to 20 a second")
        }
        XCTAssertEqual(observer.events.last?.time, 390)
        XCTAssertEqual(try Data(contentsOf: destination), transferTestBytes(2000))
    }
}
