import Foundation
import Leash
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers shared by the upload and download tests of every Leash test target.

/// A folder of its own for one test's files, under the temporary directory, removed when
/// the test ends.
package struct TransferTestFolder: Sendable {
    /// The folder.
    package let url: URL

    /// Creates `<tmp>/leash-<test class>-<UUID>`, removed when `test` ends (call it from
    /// `setUp`).
    package init(removedAfter test: XCTestCase) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "leash-\(type(of: test))-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let url = self.url
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    }

    /// A path inside the folder (its subfolders are not created).
    package func file(_ relativePath: String) -> URL {
        url.appendingPathComponent(relativePath)
    }
}

/// Base class of the virtual-time transfer tests: a `VirtualTimeTestCase` with a folder
/// of the test's own, a destination in it and a body to serve.
open class VirtualTimeTransferCase: VirtualTimeTestCase {
    /// The test's folder, removed when it ends.
    package private(set) var folder: TransferTestFolder!
    /// The body the tests' stubs serve: 400 bytes, 100 per step of `.progress(steps: 4)`.
    package let body = transferTestBytes(400)

    /// Where the test downloads to (in a subfolder that does not exist yet).
    package var destination: URL { folder.file("downloads/file.bin") }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self)
    }
}

/// `count` bytes that do not repeat with a short period (byte `i` is `i % 251`, mixed with
/// `i / 251`), so that bytes written twice or at the wrong offset show.
package func transferTestBytes(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 % 251) ^ ($0 / 251 &* 7)) })
}

/// The body of `LoopbackServer`'s `/large/{count}`: byte `i` is `i % 256`.
package func loopbackLargeBody(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0) })
}

/// Whether a file exists at `url`.
package func transferFileExists(_ url: URL) -> Bool {
    FileManager.default.fileExists(atPath: url.path)
}

/// A transport that hands everything to `base` and records the transfers it is asked
/// for: their `TransportRequest`s name the temporary files Leash made for them.
package final class TransferRecordingTransport: Transport, @unchecked Sendable {
    // @unchecked: the log is behind `lock`; `base` is immutable and Sendable.
    private let base: Transport
    private let lock = NSLock()
    private var log: [TransportRequest] = []

    /// Records the transfers sent through `base`.
    package init(_ base: Transport) {
        self.base = base
    }

    /// The transfers requested so far, in order.
    package var transfers: [TransportRequest] { lock.withLock { log } }

    /// The files the transfers' bodies were written to (downloads' temporary files).
    package var destinationFiles: [URL] {
        transfers.compactMap { request in
            if case .file(let url) = request.destination { return url }
            return nil
        }
    }

    /// `base.send(request)`.
    package func send(_ request: URLRequest) -> Observable<TransportResponse> {
        base.send(request)
    }

    /// `base.transfer(request)`, recording `request`.
    package func transfer(_ request: TransportRequest) -> Observable<TransportEvent> {
        lock.withLock { log.append(request) }
        return base.transfer(request)
    }
}

/// Retries an attempt that failed in transport (a dropped connection), up to the
/// manager's retry limit.
package struct RetryOnTransportFailure: FailureInterceptor {
    /// Retries on `LeashError.transport`.
    package init() {}

    /// Retries a transport failure; passes anything else on.
    package func intercept(chain: InterceptorChain<Data>, error: Error) {
        guard case .transport? = error as? LeashError else { return chain.proceed() }
        do {
            try chain.retry()
        } catch {
            chain.complete(with: .failure(error))
        }
    }
}

/// The progress values of `events` in the direction given (downloads unless `uploads`).
package func transferProgress<Value>(of events: [ExecutionEvent<Value>], uploads: Bool = false) -> [TransferProgress] {
    events.compactMap { event in
        switch event {
        case .uploadProgress(let progress): return uploads ? progress : nil
        case .downloadProgress(let progress): return uploads ? nil : progress
        default: return nil
        }
    }
}

/// Asserts that `progress` never goes backwards and ends with every byte of `total`.
package func assertTransferProgress(
    _ progress: [TransferProgress], endsAt total: Int64, file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertFalse(progress.isEmpty, "no progress reported", file: file, line: line)
    XCTAssertEqual(
        progress.map(\.completedBytes), progress.map(\.completedBytes).sorted(), "never backwards", file: file,
        line: line)
    XCTAssertEqual(
        progress.last, TransferProgress(completedBytes: total, expectedBytes: total), "ends complete", file: file,
        line: line)
}
