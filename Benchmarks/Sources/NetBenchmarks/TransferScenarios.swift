import Dispatch
import Foundation
import Leash
import LoopbackServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Transfers (shared/BENCHMARKS.md, "Networking"): a large download to a file, a file
// upload and a multipart upload, each by Leash (the callback forms, with the network
// benchmark's logger, validator and authenticator) and by raw URLSession doing the same
// work, on the same server in the same run. Every run is verified: a download's file
// byte for byte against the server's pattern (untimed), an upload's byte count and a
// form's parts from the server's answer.

/// The endpoints of the transfer scenarios, on the loopback server's built-in routes.
enum TransferAPI: Endpoint {
    /// `GET /bytes/{count}`: `count` bytes of `LoopbackServer.patternByte(at:)`.
    case bytes(Int)
    /// `POST /upload?sha256=0`: the file as the body, counted (not hashed) by the server.
    case upload(UploadFile)
    /// `POST /multipart`: the form, parsed by the server.
    case form(MultipartFormData)

    var path: String {
        switch self {
        case .bytes(let count): return "/bytes/\(count)"
        case .upload: return "/upload?sha256=0"
        case .form: return "/multipart"
        }
    }

    var method: HTTPMethod {
        if case .bytes = self { return .get }
        return .post
    }

    var parameters: Any? {
        switch self {
        case .bytes: return nil
        case .upload(let file): return file
        case .form(let form): return form
        }
    }
}

/// Which transfer a scenario does; scenarios of one kind are measured side by side.
enum TransferKind: String, CaseIterable {
    case download
    case upload
    case multipart
}

/// One transfer scenario: a kind of transfer, by Leash or by raw URLSession.
enum TransferMode: String, CaseIterable {
    case leashDownload = "download: leash client.download"
    case rawDownloadTask = "download: raw downloadTask + move"
    case rawDataTaskToFile = "download: raw dataTask + FileHandle"
    case leashUpload = "upload: leash client.upload(UploadFile)"
    case rawUpload = "upload: raw uploadTask(fromFile:)"
    /// The same with a delegate following the progress: the cost of URLSession's
    /// delegate path, which Leash takes to report progress.
    case rawUploadWithProgress = "upload: raw uploadTask(fromFile:) + progress delegate"
    case leashMultipart = "multipart: leash client.upload(MultipartFormData)"
    case rawMultipart = "multipart: raw form file + uploadTask(fromFile:)"

    /// The scenario's name, as in the table and for `--only`.
    var name: String { rawValue }

    var kind: TransferKind {
        switch self {
        case .leashDownload, .rawDownloadTask, .rawDataTaskToFile: return .download
        case .leashUpload, .rawUpload, .rawUploadWithProgress: return .upload
        case .leashMultipart, .rawMultipart: return .multipart
        }
    }

    /// Whether Leash does the transfer (else raw URLSession).
    var isLeash: Bool {
        switch self {
        case .leashDownload, .leashUpload, .leashMultipart: return true
        default: return false
        }
    }
}

/// The files, the server and the two clients of the transfer scenarios.
///
/// The upload's source (`bytes` of the server's pattern) is written once, in a folder of
/// its own that `removeFiles()` deletes; downloads go to that folder and are removed after
/// each run is verified.
final class TransferBench {
    /// The size of every transfer: the download, the uploaded file, the form's file part.
    let bytes: Int
    let directory: URL
    let sourceFile: URL
    let raw: RawTransferClient
    let leash: LeashSetup
    private let requestCount: () -> Int
    private let multipartMemoryThreshold: UInt64?

    /// The text field of every form.
    static let field = (name: "title", value: "benchmark")

    /// - Parameters:
    ///   - baseURL: the loopback server's.
    ///   - requestCount: how many requests the server has received so far.
    ///   - multipartMemoryThreshold: the forms' `encodingMemoryThreshold`, if not the
    ///     default (10 MB); a test sets a small one so that a small form is staged as a
    ///     large one is.
    init(bytes: Int, baseURL: URL, requestCount: @escaping () -> Int, multipartMemoryThreshold: UInt64? = nil) {
        self.bytes = bytes
        self.requestCount = requestCount
        self.multipartMemoryThreshold = multipartMemoryThreshold
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("leash-transfer-bench-\(UUID().uuidString)")
        sourceFile = directory.appendingPathComponent("source.bin")
        raw = RawTransferClient(baseURL: baseURL)
        leash = LeashSetup(baseURL: baseURL, transport: URLSessionTransport())
        FilesToRemove.onFailure.add(directory)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Self.writePattern(count: bytes, to: sourceFile)
        } catch {
            fail("cannot prepare the transfer files in \(directory.path): \(error)")
        }
    }

    /// Deletes the folder of the transfer files.
    func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
        FilesToRemove.onFailure.forget(directory)
    }

    /// The scenario of `mode`.
    func scenario(_ mode: TransferMode) -> Scenario {
        switch mode {
        case .leashDownload: return leashDownload()
        case .rawDownloadTask: return rawDownloadTask()
        case .rawDataTaskToFile: return rawDataTaskToFile()
        case .leashUpload: return leashUpload()
        case .rawUpload: return rawUpload()
        case .rawUploadWithProgress: return rawUploadWithProgress()
        case .leashMultipart: return leashMultipart()
        case .rawMultipart: return rawMultipart()
        }
    }

    // MARK: Downloads

    private func leashDownload() -> Scenario {
        let client = leash.client
        let count = bytes
        return download(.leashDownload) { destination, completion in
            client.download(TransferAPI.bytes(count), to: destination) { (response: Response<URL>) in
                switch response {
                case .success(let url, _):
                    completion(url == destination ? nil : "the file is at \(url.path), not at \(destination.path)")
                case .failure(let error):
                    completion("\(error)")
                }
            }
        }
    }

    private func rawDownloadTask() -> Scenario {
        let raw = self.raw
        let count = bytes
        return download(.rawDownloadTask) { destination, completion in
            raw.downloadTask(count: count, to: destination, completion: completion)
        }
    }

    private func rawDataTaskToFile() -> Scenario {
        let raw = self.raw
        let count = bytes
        return download(.rawDataTaskToFile) { destination, completion in
            raw.dataTaskToFile(count: count, to: destination, completion: completion)
        }
    }

    /// A download to a file of this bench's folder, then (untimed) the file checked byte
    /// for byte and removed.
    private func download(
        _ mode: TransferMode, start: @escaping (URL, @escaping @Sendable (String?) -> Void) -> Void
    ) -> Scenario {
        let destination = directory.appendingPathComponent("download.bin")
        let count = bytes
        return scenario(mode) {
            defer { try? FileManager.default.removeItem(at: destination) }
            return Self.patternMismatch(in: destination, count: count)
        } start: { completion in
            start(destination, completion)
        }
    }

    // MARK: Uploads

    private func leashUpload() -> Scenario {
        let client = leash.client
        let file = UploadFile(sourceFile)
        let count = bytes
        return scenario(.leashUpload) { completion in
            client.upload(TransferAPI.upload(file), as: LoopbackServer.ReceivedUpload.self) { response in
                completion(Self.uploadProblem(response.result, count: count))
            }
        }
    }

    private func rawUpload() -> Scenario {
        let raw = self.raw
        let file = sourceFile
        let count = bytes
        return scenario(.rawUpload) { completion in
            raw.upload(file: file) { result in
                completion(Self.uploadProblem(result.mapError { $0 as Error }, count: count))
            }
        }
    }

    private func rawUploadWithProgress() -> Scenario {
        let raw = self.raw
        let file = sourceFile
        let count = bytes
        return scenario(.rawUploadWithProgress) { completion in
            raw.uploadWithProgress(file: file) { result, sent in
                let problem = Self.uploadProblem(result.mapError { $0 as Error }, count: count)
                completion(problem ?? (sent == count ? nil : "the delegate saw \(sent) bytes sent, not \(count)"))
            }
        }
    }

    private func leashMultipart() -> Scenario {
        let client = leash.client
        let file = sourceFile
        let count = bytes
        let threshold = multipartMemoryThreshold
        return scenario(.leashMultipart) { completion in
            let form = MultipartFormData()
            if let threshold { form.encodingMemoryThreshold = threshold }
            form.append(Self.field.value, name: Self.field.name)
            form.append(fileAt: file, name: "file")
            client.upload(TransferAPI.form(form), as: LoopbackServer.ReceivedMultipart.self) { response in
                completion(Self.formProblem(response.result, file: file, count: count))
            }
        }
    }

    private func rawMultipart() -> Scenario {
        let raw = self.raw
        let file = sourceFile
        let count = bytes
        let directory = self.directory
        return scenario(.rawMultipart) { completion in
            raw.uploadForm(field: Self.field, file: file, fileField: "file", stagingIn: directory) { result in
                completion(Self.formProblem(result.mapError { $0 as Error }, file: file, count: count))
            }
        }
    }

    // MARK: Checks

    /// One transfer per run, timed from `start` until it calls its completion (with `nil`
    /// on success, else what went wrong); then, untimed, `verify`. The server must see one
    /// request, and Leash's each pass the logger (twice) and the validator.
    private func scenario(
        _ mode: TransferMode, verify: @escaping () -> String? = { nil },
        start: @escaping (_ completion: @escaping @Sendable (String?) -> Void) -> Void
    ) -> Scenario {
        let requestCount = self.requestCount
        let leash = self.leash
        let isLeash = mode.isLeash
        let outcome = TransferOutcome()
        return Scenario(
            name: mode.name, operations: 1,
            expect: Tally(values: 1, served: 1, interceptorCalls: isLeash ? 3 : 0),
            observe: {
                Tally(served: requestCount(), interceptorCalls: isLeash ? leash.interceptorCalls() : 0)
            },
            verify: {
                // The transfer's own problem first: a failed download leaves no file.
                let transferProblem = outcome.take()
                let fileProblem = verify()
                return transferProblem ?? fileProblem
            },
            measuresPeakMemory: true
        ) {
            let problem = awaitCompletion(start)
            outcome.record(problem)
            return problem == nil ? Tally(values: 1) : Tally(failures: 1)
        }
    }

    private static func uploadProblem(_ result: Result<LoopbackServer.ReceivedUpload, Error>, count: Int) -> String? {
        switch result {
        case .success(let received):
            return received.bytes == count ? nil : "the server received \(received.bytes) bytes, not \(count)"
        case .failure(let error):
            return "\(error)"
        }
    }

    private static func formProblem(
        _ result: Result<LoopbackServer.ReceivedMultipart, Error>, file: URL, count: Int
    ) -> String? {
        switch result {
        case .success(let received):
            let parts = received.parts.map { "\($0.name)=\($0.bytes) bytes" }
            guard received.parts.count == 2, received.parts[0].name == field.name,
                received.parts[0].value == field.value, received.parts[0].fileName == nil,
                received.parts[1].name == "file", received.parts[1].fileName == file.lastPathComponent,
                received.parts[1].bytes == count
            else {
                return "the server received the parts \(parts), not \(field.name) and file=\(count) bytes"
            }
            return nil
        case .failure(let error):
            return "\(error)"
        }
    }

    /// Writes `count` bytes of the server's pattern to `url`, 4 MB at a time.
    static func writePattern(count: Int, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var offset = 0
        while offset < count {
            let end = min(count, offset + verificationChunk)
            try handle.write(contentsOf: LoopbackServer.patternBytes(in: offset..<end))
            offset = end
        }
    }

    private static let verificationChunk = 4 << 20

    /// What differs between the file at `url` and `count` bytes of the server's pattern
    /// (its size, or the first differing offset), or `nil`: every byte is compared, 4 MB
    /// at a time.
    static func patternMismatch(in url: URL, count: Int) -> String? {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        guard size == count else { return "the file has \(size.map(String.init) ?? "no") bytes, not \(count)" }
        guard let handle = try? FileHandle(forReadingFrom: url) else { return "the file cannot be read" }
        defer { try? handle.close() }
        var expected = Data(count: verificationChunk)
        var offset = 0
        while offset < count {
            let length = min(verificationChunk, count - offset)
            guard let chunk = try? handle.read(upToCount: length), chunk.count == length else {
                return "the file cannot be read at offset \(offset)"
            }
            expected.withUnsafeMutableBytes {
                LoopbackServer.fillPattern(UnsafeMutableRawBufferPointer(rebasing: $0[0..<length]), from: offset)
            }
            if chunk != expected.prefix(length) {
                let first = zip(chunk, expected.prefix(length)).enumerated().first { $0.element.0 != $0.element.1 }
                return "the file differs from the pattern at offset \(offset + (first?.offset ?? 0))"
            }
            offset += length
        }
        return nil
    }
}

/// The problem of a scenario's last run, kept from the timed part for its verification.
final class TransferOutcome: @unchecked Sendable {
    // @unchecked: `problem` is only touched under `lock`.
    private let lock = NSLock()
    private var problem: String?

    func record(_ problem: String?) {
        lock.withLock { self.problem = problem }
    }

    /// The last run's problem, forgotten.
    func take() -> String? {
        lock.withLock {
            defer { problem = nil }
            return problem
        }
    }
}

/// Starts something with `start` and waits for the completion it is given (called once,
/// from any thread); returns what it was called with.
func awaitCompletion(_ start: (@escaping @Sendable (String?) -> Void) -> Void) -> String? {
    let outcome = TransferOutcome()
    let done = DispatchSemaphore(value: 0)
    start { problem in
        outcome.record(problem)
        done.signal()
    }
    done.wait()
    return outcome.take()
}
