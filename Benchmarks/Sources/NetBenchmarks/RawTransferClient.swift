import Foundation
import LoopbackServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The floor of the transfer scenarios: what an app writes by hand with URLSession to
/// download to a file and to upload a file or a form, on sessions configured as Leash's
/// transport configures its own (URLSession's defaults, no URLCache on Linux) and sending the same credential.
///
/// Each call starts one transfer and calls `completion` once, with `nil` on success or
/// what went wrong, from whatever thread URLSession answers on.
final class RawTransferClient: @unchecked Sendable {
    // @unchecked: immutable; URLSession is thread-safe, the delegate keeps its own lock.
    let baseURL: URL
    /// Completion-handler tasks (`downloadTask`, `uploadTask`), as most apps use them.
    private let session: URLSession
    /// Tasks with a delegate: data tasks writing the body to a file as it arrives, uploads
    /// reporting their progress.
    private let streamingSession: URLSession
    private let delegate = StreamingDelegate()

    init(baseURL: URL) {
        self.baseURL = baseURL
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        // The default delegate queue (a serial `OperationQueue`), as an app passes `nil`.
        streamingSession = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
        streamingSession.finishTasksAndInvalidate()
    }

    private func request(_ path: String, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: URL(string: path, relativeTo: baseURL)?.absoluteURL ?? baseURL)
        request.httpMethod = method
        request.setValue(benchmarkToken, forHTTPHeaderField: "Authorization")
        return request
    }

    // MARK: Downloads

    /// `GET /bytes/{count}` with `downloadTask(with:)`, whose file (URLSession's own
    /// temporary one, documented as valid only until the handler returns) is moved to
    /// `destination` in the completion handler.
    func downloadTask(count: Int, to destination: URL, completion: @escaping @Sendable (String?) -> Void) {
        session.downloadTask(with: request("/bytes/\(count)")) { location, response, error in
            if let problem = Self.problem(response, error) { return completion(problem) }
            guard let location else { return completion("no file") }
            do {
                try FileManager.default.moveItem(at: location, to: destination)
                completion(nil)
            } catch {
                completion("cannot move the download: \(error)")
            }
        }.resume()
    }

    /// `GET /bytes/{count}` with a data task whose delegate writes each chunk to a
    /// `FileHandle` on `destination` as it arrives.
    func dataTaskToFile(count: Int, to destination: URL, completion: @escaping @Sendable (String?) -> Void) {
        let task = streamingSession.dataTask(with: request("/bytes/\(count)"))
        delegate.register(FileDownload(destination: destination, completion: completion), for: task)
        task.resume()
    }

    // MARK: Uploads

    /// `POST /upload?sha256=0` with the file at `file` as the body
    /// (`uploadTask(with:fromFile:)`); the server's answer, decoded.
    func upload(file: URL, completion: @escaping @Sendable (Result<LoopbackServer.ReceivedUpload, Failure>) -> Void) {
        var request = request("/upload?sha256=0", method: "POST")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        session.uploadTask(with: request, fromFile: file) { data, response, error in
            completion(Self.decoded(LoopbackServer.ReceivedUpload.self, data, response, error))
        }.resume()
    }

    /// `upload(file:completion:)` on a session with a delegate that follows the upload's
    /// progress (`didSendBodyData`), as an app showing a progress bar does; `completion`
    /// also gets the last total of bytes sent that the delegate saw.
    func uploadWithProgress(
        file: URL,
        completion: @escaping @Sendable (Result<LoopbackServer.ReceivedUpload, Failure>, _ sent: Int64) -> Void
    ) {
        var request = request("/upload?sha256=0", method: "POST")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let task = streamingSession.uploadTask(with: request, fromFile: file)
        delegate.register(ProgressUpload<LoopbackServer.ReceivedUpload>(completion: completion), for: task)
        task.resume()
    }

    /// `POST /multipart` with a form the app writes itself to a temporary file in
    /// `directory`: a text field, then the file at `file` copied in 1 MB chunks; uploaded
    /// with `uploadTask(with:fromFile:)` and removed once answered.
    func uploadForm(
        field: (name: String, value: String), file: URL, fileField: String, stagingIn directory: URL,
        completion: @escaping @Sendable (Result<LoopbackServer.ReceivedMultipart, Failure>) -> Void
    ) {
        let boundary = "raw-boundary-\(UUID().uuidString)"
        let staged = directory.appendingPathComponent("raw-\(UUID().uuidString).multipart")
        do {
            try Self.writeForm(boundary: boundary, field: field, file: file, fileField: fileField, to: staged)
        } catch {
            try? FileManager.default.removeItem(at: staged)
            return completion(.failure(Failure(reason: "cannot write the form: \(error)")))
        }
        var request = request("/multipart", method: "POST")
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        session.uploadTask(with: request, fromFile: staged) { data, response, error in
            try? FileManager.default.removeItem(at: staged)
            completion(Self.decoded(LoopbackServer.ReceivedMultipart.self, data, response, error))
        }.resume()
    }

    /// How many bytes of the file part are copied at a time.
    static let copyChunkSize = 1 << 20

    private static func writeForm(
        boundary: String, field: (name: String, value: String), file: URL, fileField: String, to staged: URL
    ) throws {
        guard FileManager.default.createFile(atPath: staged.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let output = try FileHandle(forWritingTo: staged)
        defer { try? output.close() }
        let input = try FileHandle(forReadingFrom: file)
        defer { try? input.close() }
        try output.write(
            contentsOf: Data(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field.name)\"\r\n\r\n\(field.value)\r\n"
                    + "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(fileField)\"; "
                    + "filename=\"\(file.lastPathComponent)\"\r\nContent-Type: application/octet-stream\r\n\r\n").utf8))
        while let chunk = try input.read(upToCount: copyChunkSize), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
        try output.write(contentsOf: Data("\r\n--\(boundary)--\r\n".utf8))
    }

    // MARK: Answers

    /// What went wrong with a transfer (an error, or a status outside 2xx), if anything.
    fileprivate static func problem(_ response: URLResponse?, _ error: Error?) -> String? {
        if let error { return "\(error)" }
        guard let status = (response as? HTTPURLResponse)?.statusCode else { return "no HTTP response" }
        return (200..<300).contains(status) ? nil : "status \(status)"
    }

    private static func decoded<Value: Decodable>(
        _ type: Value.Type, _ data: Data?, _ response: URLResponse?, _ error: Error?
    ) -> Result<Value, Failure> {
        if let problem = problem(response, error) { return .failure(Failure(reason: problem)) }
        do {
            return .success(try JSONDecoder().decode(type, from: data ?? Data()))
        } catch {
            return .failure(Failure(reason: "the answer does not decode: \(error)"))
        }
    }

    /// Why a raw transfer failed.
    struct Failure: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}

/// The delegate of `RawTransferClient`'s streaming session: hands each task's callbacks to
/// the `StreamingTask` registered for it, as an app keeps an object per transfer.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `tasks` is behind `lock`; each `StreamingTask` is only touched on the
    // session's serial delegate queue once registered.
    private let lock = NSLock()
    private var tasks: [Int: StreamingTask] = [:]

    func register(_ streaming: StreamingTask, for task: URLSessionTask) {
        lock.withLock { tasks[task.taskIdentifier] = streaming }
    }

    private func streaming(for task: URLSessionTask, removing: Bool = false) -> StreamingTask? {
        lock.withLock { removing ? tasks.removeValue(forKey: task.taskIdentifier) : tasks[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        streaming(for: task)?.sent(totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(streaming(for: dataTask)?.received(response) ?? .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let streaming = streaming(for: dataTask), streaming.received(data) else { return }
        dataTask.cancel()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        streaming(for: task, removing: true)?.completed(error)
    }
}

/// One transfer of the streaming session, told of its events in order.
private class StreamingTask {
    /// Why the transfer failed, once it has.
    var problem: String?

    /// Whether to go on with the response.
    func received(_ response: URLResponse) -> URLSession.ResponseDisposition {
        if let problem = RawTransferClient.problem(response, nil) {
            self.problem = problem
            return .cancel
        }
        return .allow
    }

    /// Takes a chunk of the body; returns whether the task must be cancelled.
    func received(_ data: Data) -> Bool { false }

    func sent(_ total: Int64) {}

    func completed(_ error: Error?) {}
}

/// A download written to `destination` a chunk at a time, through a `FileHandle`.
private final class FileDownload: StreamingTask {
    private let destination: URL
    private let completion: @Sendable (String?) -> Void
    private var handle: FileHandle?

    init(destination: URL, completion: @escaping @Sendable (String?) -> Void) {
        self.destination = destination
        self.completion = completion
    }

    override func received(_ response: URLResponse) -> URLSession.ResponseDisposition {
        guard super.received(response) == .allow else { return .cancel }
        guard FileManager.default.createFile(atPath: destination.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: destination)
        else {
            problem = "cannot create \(destination.path)"
            return .cancel
        }
        self.handle = handle
        return .allow
    }

    override func received(_ data: Data) -> Bool {
        guard problem == nil else { return false }
        do {
            try handle?.write(contentsOf: data)
            return false
        } catch {
            problem = "cannot write: \(error)"
            return true
        }
    }

    override func completed(_ error: Error?) {
        do {
            try handle?.close()
        } catch {
            problem = problem ?? "cannot close: \(error)"
        }
        completion(problem ?? error.map { "\($0)" })
    }
}

/// An upload whose progress is followed (the last total kept, as a progress bar shows it)
/// and whose answer is collected and decoded.
private final class ProgressUpload<Answer: Decodable>: StreamingTask {
    private let completion: @Sendable (Result<Answer, RawTransferClient.Failure>, Int64) -> Void
    private var body = Data()
    private var sentBytes: Int64 = 0

    init(completion: @escaping @Sendable (Result<Answer, RawTransferClient.Failure>, Int64) -> Void) {
        self.completion = completion
    }

    override func sent(_ total: Int64) {
        sentBytes = total
    }

    override func received(_ data: Data) -> Bool {
        body.append(data)
        return false
    }

    override func completed(_ error: Error?) {
        if let problem = problem ?? error.map({ "\($0)" }) {
            return completion(.failure(RawTransferClient.Failure(reason: problem)), sentBytes)
        }
        do {
            completion(.success(try JSONDecoder().decode(Answer.self, from: body)), sentBytes)
        } catch {
            completion(.failure(RawTransferClient.Failure(reason: "the answer does not decode: \(error)")), sentBytes)
        }
    }
}
