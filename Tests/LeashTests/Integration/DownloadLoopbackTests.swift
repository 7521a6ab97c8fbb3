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

/// Downloads to disk over the default `URLSessionTransport`, against `LoopbackServer`:
/// progress, the file moved into place only when complete and accepted, nothing left
/// behind on failure or dispose, and resuming with `Range`.
final class DownloadLoopbackTests: LoopbackIntegrationCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self).url
    }

    private var destination: URL { folder.appendingPathComponent("sub/dir/file.bin") }

    private func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0) })
    }

    func testDownload_writesTheBodyToTheDestination_withProgressEndingAtEveryByte() throws {
        let before = transferFiles()
        let client = try makeClient()
        let events = try client.downloadEventStream(SpecEndpoint("/large/3000000"), to: destination)
            .toBlocking(timeout: 20).toArray()

        XCTAssertEqual(events.compactMap(\.value), [destination])
        XCTAssertEqual(try Data(contentsOf: destination), pattern(3_000_000))
        let progress = events.compactMap { event -> TransferProgress? in
            if case .downloadProgress(let progress) = event { return progress }
            return nil
        }
        XCTAssertEqual(progress.last, TransferProgress(completedBytes: 3_000_000, expectedBytes: 3_000_000))
        XCTAssertEqual(progress.map(\.completedBytes), progress.map(\.completedBytes).sorted(), "never backwards")
        XCTAssertLessThan(progress.count, 60, "throttled, not one per 16 KB chunk (\(progress.count))")
        guard case .responseReceived(_, let data, _)? = events.first(where: { $0.isResponseReceived }) else {
            return XCTFail("no response event")
        }
        XCTAssertTrue(data.isEmpty, "the body went to the file, not to memory")
        XCTAssertEqual(transferFiles(), before, "the temporary file was moved, not left")
    }

    func testDownload_replacesAFileAlreadyAtTheDestination() throws {
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: destination)
        let client = try makeClient()
        _ = try client.downloadEventStream(SpecEndpoint("/large/1000"), to: destination).toBlocking(timeout: 10)
            .toArray()
        XCTAssertEqual(try Data(contentsOf: destination), pattern(1000))
    }

    func testDownload_unacceptableStatus_failsWithTheErrorBody_andLeavesNoFile() throws {
        let before = transferFiles()
        server.route("GET", "/missing", response: LoopbackResponse.json(Data(#"{"error":"gone"}"#.utf8), status: 404))
        let client = try makeClient()
        XCTAssertThrowsError(
            try client.downloadEventStream(SpecEndpoint("/missing"), to: destination).toBlocking(timeout: 10).toArray()
        ) { error in
            guard case .unacceptableStatusCode(let failure)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.statusCode, 404)
            XCTAssertEqual(failure.body, Data(#"{"error":"gone"}"#.utf8), "an error page stays in memory")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(transferFiles(), before)
        let events = try client.downloadEventStream(SpecEndpoint("/missing"), to: destination).materialize()
            .toBlocking(timeout: 10).toArray()
        XCTAssertFalse(
            events.contains { $0.element?.transferProgress != nil }, "no progress for the error page: \(events)")
    }

    func testDownload_disposedMidway_leavesNothingBehind_andTheServerSeesTheClose() throws {
        let before = transferFiles()
        server.route("GET", "/slow", response: LoopbackResponse.hang)
        let client = try makeClient()
        let started = expectation(description: "the request reached the transport")
        let subscription = client.downloadEventStream(SpecEndpoint("/slow"), to: destination)
            .subscribe(onNext: { event in
                if case .requestSent = event { started.fulfill() }
            })
        wait(for: [started], timeout: 10)
        waitForServer("the request") { $0.requestCount >= 1 }
        // Made before the request went out, in the test's own folder (`makeClient`'s), so
        // that the counts here are this test's files alone.
        XCTAssertEqual(transferFiles().count, before.count + 1, "the temporary file, in the test's folder")
        subscription.dispose()
        waitForServer("the client closing the connection") { $0.clientDisconnectCount >= 1 }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(transferFiles(), before, "the temporary file is removed on dispose")
    }

    func testDownload_destinationThatCannotBeWritten_failsWithFileAccess_andRemovesTheTemporaryFile() throws {
        let before = transferFiles()
        // A folder where the destination's parent should be: a file blocks it.
        let blocker = folder.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let client = try makeClient()
        XCTAssertThrowsError(
            try client.downloadEventStream(SpecEndpoint("/large/5000"), to: blocker.appendingPathComponent("file.bin"))
                .toBlocking(timeout: 10).toArray()
        ) { error in
            guard case .fileAccess(_, let url, let underlying)? = error as? LeashError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(url.lastPathComponent, "file.bin")
            XCTAssertNotNil(underlying, "the file system's error is kept")
        }
        XCTAssertEqual(transferFiles(), before)
    }

    // MARK: Resuming

    func testDownload_resumingFromAPartialFile_asksForTheRest_andAppendsThe206() throws {
        let body = pattern(100_000)
        let partial = folder.appendingPathComponent("partial.bin")
        try body.prefix(40_000).write(to: partial)
        server.route(LoopbackServer.Route.ranged("/file", body: body))
        let client = try makeClient()

        let events = try client.downloadEventStream(SpecEndpoint("/file"), to: destination, resumingFrom: partial)
            .toBlocking(timeout: 10).toArray()

        XCTAssertEqual(try Data(contentsOf: destination), body)
        XCTAssertEqual(server.lastRangeHeader, "bytes=40000-")
        let sent = events.compactMap { event -> URLRequest? in
            if case .requestSent(let request, _) = event { return request }
            return nil
        }
        XCTAssertEqual(sent.first?.value(forHTTPHeaderField: "Range"), "bytes=40000-", "the event shows the Range")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: partial.path), "the app's partial file is copied, not taken")
        guard case .downloadProgress(let last)? = events.last(where: { $0.transferProgress != nil }) else {
            return XCTFail("no progress")
        }
        XCTAssertEqual(last, TransferProgress(completedBytes: 100_000, expectedBytes: 100_000), "counts what it had")
    }

    func testDownload_serverIgnoringTheRange_startsOver_withoutDuplicatedBytes() throws {
        let body = pattern(50_000)
        let partial = folder.appendingPathComponent("partial.bin")
        try Data(repeating: 0xEE, count: 10_000).write(to: partial)
        server.route("GET", "/file", response: LoopbackResponse(body: body))
        let client = try makeClient()

        _ = try client.downloadEventStream(SpecEndpoint("/file"), to: destination, resumingFrom: partial)
            .toBlocking(timeout: 10).toArray()

        XCTAssertEqual(try Data(contentsOf: destination), body, "the 200 replaced the partial bytes")
    }

    func testDownload_retryAfterADroppedConnection_resumesWhereItStopped() throws {
        let body = pattern(200_000)
        server.route(LoopbackServer.Route.ranged("/flaky", body: body, dropFirstAfter: 64_000))
        let client = try makeClient { $0.add(interceptor: RetryOnTransportFailure()) }

        let events = try client.downloadEventStream(SpecEndpoint("/flaky"), to: destination).toBlocking(timeout: 10)
            .toArray()

        XCTAssertEqual(try Data(contentsOf: destination), body)
        XCTAssertTrue(events.contains { if case .retrying(2) = $0 { return true } else { return false } })
        let resumedFrom = server.lastRangeHeader.flatMap { Int($0.dropFirst("bytes=".count).dropLast()) }
        XCTAssertNotNil(resumedFrom, "the second attempt asked for a range: \(server.lastRangeHeader ?? "none")")
        XCTAssertGreaterThan(resumedFrom ?? 0, 0)
        XCTAssertLessThanOrEqual(resumedFrom ?? .max, 64_000)
    }
}

extension ExecutionEvent {
    fileprivate var isResponseReceived: Bool {
        if case .responseReceived = self { return true }
        return false
    }
}

extension LoopbackServer {
    /// The `Range` header of the last request that had one.
    fileprivate var lastRangeHeader: String? {
        RangeLog.shared.last
    }
}

/// The `Range` headers the ranged routes saw.
private final class RangeLog: @unchecked Sendable {
    // @unchecked: behind `lock`.
    static let shared = RangeLog()
    private let lock = NSLock()
    private var ranges: [String] = []

    func record(_ range: String?) {
        guard let range else { return }
        lock.withLock { ranges.append(range) }
    }

    var last: String? { lock.withLock { ranges.last } }
}

extension LoopbackServer.Route {
    /// A route serving `body` with `Range: bytes=N-` support; the first request (without
    /// a range) is cut after `dropFirstAfter` bytes if given.
    fileprivate static func ranged(_ path: String, body: Data, dropFirstAfter: Int? = nil) -> Self {
        let requests = SpecLocked(0)
        return .get(path) { request in
            let count = requests.withLock { count -> Int in
                count += 1
                return count
            }
            let range = request.headers["Range"]
            RangeLog.shared.record(range)
            if let range, range.hasPrefix("bytes="), range.hasSuffix("-"),
                let start = Int(range.dropFirst("bytes=".count).dropLast()), start < body.count
            {
                return LoopbackResponse(
                    status: 206, headers: ["Content-Range": "bytes \(start)-\(body.count - 1)/\(body.count)"],
                    body: body.subdata(in: start..<body.count))
            }
            if count == 1, let cut = dropFirstAfter {
                // Announces the whole body, sends `cut` bytes, then closes.
                return LoopbackResponse(body: body.prefix(cut * 2), delivery: .closeMidBody)
                    .header("X-Total", "\(body.count)")
            }
            return LoopbackResponse(body: body)
        }
    }
}
