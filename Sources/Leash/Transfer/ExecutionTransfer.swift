import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one execution (one subscription) moves besides small bodies in memory: the file
/// its body is uploaded from, the temporary file its download is written to, and the
/// progress it reports. Made per subscription by the pipeline, when the execution may
/// need the transport's `transfer` (see `Attempt.transportRequest(for:)`).
///
/// It owns the files it makes (a staged multipart body, a download's temporary file) and
/// removes them when the execution ends, whatever ends it (`release()`, called by every
/// form at the end, and again when it is freed).
final class ExecutionTransfer: Sendable {
    /// What the execution made and reported so far, decided under the lock.
    private struct State {
        /// The endpoint's body, once looked at (the parameters are read once per execution).
        var body: PreparedBody?
        /// Files this execution made, removed at its end.
        var ownedFiles: [URL] = []
        var downloadFile: URL?
        var isReleased = false
        var uploadThrottle = ProgressThrottle()
        var downloadThrottle = ProgressThrottle()
    }

    /// Whether the execution reports progress events (the events form, uploads and
    /// downloads), or the idle limit needs the transport to report bytes as they move.
    let reportsProgress: Bool
    /// Where a download goes, if this is one.
    let download: DownloadPlan?
    /// Whether the response's body is handed on in chunks as it arrives (a stream).
    let streams: Bool
    /// The clock progress is throttled on: the manager's scheduler (virtual under a
    /// `TestScheduler`).
    private let scheduler: SchedulerType
    /// Where the files it makes go (the manager's `transferDirectory`).
    private let directory: URL
    private let state = LockedState(State())

    init(
        reportsProgress: Bool, download: DownloadPlan?, streams: Bool = false, scheduler: SchedulerType, directory: URL
    ) {
        self.reportsProgress = reportsProgress
        self.download = download
        self.streams = streams
        self.scheduler = scheduler
        self.directory = directory
    }

    deinit {
        release()
    }

    /// The request's body as the transport gets it: in the request, or from a file (an
    /// `UploadFile`, or a large `MultipartFormData` staged to a temporary file once per
    /// execution, whose `Content-Type` is set to match the staged boundary).
    func body(for endpoint: Endpoint, request: inout URLRequest) throws -> TransportRequest.Body {
        // The request's method, not the endpoint's: a redirect may have made it a `GET`.
        guard request.httpBody == nil, request.httpBodyStream == nil,
            HTTPMethod(rawValue: request.httpMethod ?? "GET").allowsBody
        else {
            return .inRequest
        }
        // Made under the lock, once: every attempt sends the same staged file, and a
        // `release()` racing it cannot miss the file.
        let prepared = try state.withLock { state throws -> PreparedBody in
            if let body = state.body { return body }
            if state.isReleased { throw LeashError.cancelled }
            let made = try PreparedBody(parameters: endpoint.parameters, request: request, stagingIn: directory)
            if case .file(let url, _, true) = made { state.ownedFiles.append(url) }
            state.body = made
            return made
        }
        switch prepared {
        case .inRequest:
            return .inRequest
        case .file(let url, let contentType, _):
            if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
            return .file(url)
        }
    }

    /// Where the response's body goes: the download's temporary file (made on the first
    /// attempt, from `resumingFrom` if given; later attempts resume it), a stream's
    /// chunks, else memory.
    func destination() throws -> TransportRequest.Destination {
        if streams { return .stream }
        guard let download else { return .memory }
        return .file(
            try state.withLock { state throws -> URL in
                if let downloadFile = state.downloadFile { return downloadFile }
                // Over already (disposed, timed out): no file is made that nobody removes.
                if state.isReleased { throw LeashError.cancelled }
                let url = try download.makeTemporaryFile(in: directory)
                state.ownedFiles.append(url)
                state.downloadFile = url
                return url
            })
    }

    /// `progress` if it is due for reporting: the first, the last (every byte), and
    /// otherwise at most one every `ProgressThrottle.interval` on the manager's clock
    /// (not one per 16 KB chunk of a 1 GB file).
    func throttled(upload progress: TransferProgress) -> TransferProgress? {
        let now = scheduler.now
        return state.withLock { $0.uploadThrottle.admit(progress, at: now) } ? progress : nil
    }

    /// As `throttled(upload:)`, for the response's body.
    func throttled(download progress: TransferProgress) -> TransferProgress? {
        let now = scheduler.now
        return state.withLock { $0.downloadThrottle.admit(progress, at: now) } ? progress : nil
    }

    /// Removes the files this execution made (a download's temporary file, once moved
    /// into place, is already gone). Idempotent.
    func release() {
        let files = state.withLock { state -> [URL] in
            if state.isReleased { return [] }
            state.isReleased = true
            defer { state.ownedFiles.removeAll() }
            return state.ownedFiles
        }
        for file in files { try? FileManager.default.removeItem(at: file) }
    }

    /// Where Leash keeps the files of transfers in progress, unless the manager says
    /// otherwise.
    static var defaultDirectory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("leash-transfers", isDirectory: true)
    }
}

/// A download: where the file goes, and the beginning of it the app already has.
///
/// A class: the pipeline's value is copied often, and one reference in its `kind` copies
/// cheaper than two URLs.
final class DownloadPlan: Sendable {
    /// Where the file is moved when the download is complete and accepted.
    let destination: URL
    /// A file holding the first bytes of the body (an earlier download's), copied and
    /// resumed with `Range`.
    let resumingFrom: URL?

    init(destination: URL, resumingFrom: URL?) {
        self.destination = destination
        self.resumingFrom = resumingFrom
    }

    /// The temporary file of one execution: empty, or a copy of `resumingFrom`.
    func makeTemporaryFile(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("download-\(UUID().uuidString).part")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if let resumingFrom {
                try FileManager.default.copyItem(at: resumingFrom, to: url)
            } else {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown)
                }
            }
        } catch {
            throw LeashError.fileAccess(
                reason: resumingFrom == nil
                    ? "the download's temporary file cannot be created"
                    : "the partial download to resume from cannot be copied (\(resumingFrom?.path ?? ""))",
                url: url, underlying: error)
        }
        return url
    }
}

/// The body an endpoint's parameters make, as the pipeline sends it.
enum PreparedBody {
    /// In the request (`httpBody`, or none).
    case inRequest
    /// From a file, with the `Content-Type` it needs (a staged multipart body's boundary);
    /// `isStaged` when the file was made for this execution.
    case file(URL, contentType: String?, isStaged: Bool)

    /// The body of `request`, built from `parameters`: a file-backed one (see
    /// `RequestBuilder.streamedBody`) comes from its file, a large form is staged to a
    /// file in `directory` first.
    init(parameters: Any?, request: URLRequest, stagingIn directory: URL) throws {
        switch RequestBuilder.streamedBody(of: parameters, for: request) {
        case nil:
            self = .inRequest
        case .file(let url):
            self = .file(url, contentType: nil, isStaged: false)
        case .multipart(let form):
            let url = directory.appendingPathComponent("upload-\(UUID().uuidString).multipart")
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw LeashError.fileAccess(
                    reason: "the folder for staging the multipart body cannot be created", url: directory,
                    underlying: error)
            }
            // The length the request announces: a form that changed since fails rather
            // than send a body of another length.
            let announced = request.value(forHTTPHeaderField: "Content-Length").flatMap { UInt64($0) }
            try form.write(to: url, expectedLength: announced)
            self = .file(url, contentType: form.contentType, isStaged: true)
        }
    }
}

/// Which progress events are reported: the first, every one that completes the
/// transfer, and otherwise one per `interval`; none for an empty body.
struct ProgressThrottle {
    /// At most this many seconds between reports of a transfer in progress: 20 a second.
    static let interval: TimeInterval = 0.05

    private var last: TransferProgress?
    private var lastTime: Date?

    mutating func admit(_ progress: TransferProgress, at now: Date) -> Bool {
        // Nothing to report of an empty body; nor the same progress twice.
        if progress == last || (progress.completedBytes == 0 && progress.expectedBytes == 0) { return false }
        let due =
            lastTime.map { now.timeIntervalSince($0) >= Self.interval } ?? true
            || progress.isComplete
        guard due else { return false }
        last = progress
        lastTime = now
        return true
    }
}
