import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads and downloads: executions that report their bytes as they move, through the
/// same pipeline as every request (authenticator, interceptors, token refresh, retries,
/// timeouts, cancellation).
///
/// An upload is an endpoint whose `parameters` are a body (`Data`, `UploadFile`,
/// `MultipartFormData`, `FormURLEncoded`, or any `Encodable`); it reports
/// `.uploadProgress` as the body goes out. A download writes the response's body to a
/// temporary file as it arrives (reporting `.downloadProgress`) and moves it to the
/// destination only once it is complete and accepted; disposing, failing or timing out
/// leaves nothing at the destination and removes the temporary file. A download whose
/// connection drops is resumed by its next attempt (a retry) with `Range`, as it is from
/// `resumingFrom:`.
///
/// Their time limits suit transfers: the manager's `timeout` bounds each stall (no bytes
/// for that long), not the whole transfer; an endpoint's own `timeout` bounds the whole.
extension Client {
    // MARK: The streams `client.rx` and the `async` forms deliver

    /// The download of `endpoint` to `destination`, as a stream of events:
    /// `.downloadProgress` as the body arrives, then `.value(destination)`. What
    /// `client.rx.download` and `download` deliver.
    ///
    /// - Parameters:
    ///   - endpoint: What to download.
    ///   - destination: Where the file goes (its folder is created; a file there is
    ///     replaced) once the download is complete and its status accepted.
    ///   - partialFile: A file holding the first bytes of the body (an earlier
    ///     download's): copied, and the rest asked for with `Range`. A server that answers
    ///     200 instead of 206 starts the file over.
    package func downloadEventStream(_ endpoint: Endpoint, to destination: URL, resumingFrom partialFile: URL? = nil)
        -> Observable<ExecutionEvent<URL>>
    {
        ObservableForms.Events(
            recipe: downloadRecipe(endpoint, to: destination, resumingFrom: partialFile),
            serializer: FileDestinationSerializer(destination: destination)
        )
        .asObservable()
    }

    /// The upload of `endpoint`'s body, as a stream of events: `.uploadProgress` as the
    /// body goes out, then the response's `.value`, serialized with `serializer`. What
    /// `client.rx.upload` and `upload` deliver.
    package func uploadEventStream<Serializer: ResponseSerializer>(_ endpoint: Endpoint, serializer: Serializer)
        -> Observable<ExecutionEvent<Serializer.SerializedObject>>
    {
        ObservableForms.Events(
            recipe: ExecutionRecipe(client: self, endpoint: endpoint, kind: .upload), serializer: serializer
        )
        .asObservable()
    }

    /// The upload of `endpoint`'s body, decoding the response as `Value` (see
    /// `uploadEventStream(_:serializer:)`).
    package func uploadEventStream<Value: Decodable>(_ endpoint: Endpoint, as type: Value.Type = Value.self)
        -> Observable<ExecutionEvent<Value>>
    {
        uploadEventStream(endpoint, serializer: decodableSerializer(for: endpoint, as: type))
    }

    private func downloadRecipe(_ endpoint: Endpoint, to destination: URL, resumingFrom partialFile: URL?)
        -> ExecutionRecipe
    {
        ExecutionRecipe(
            client: self, endpoint: endpoint,
            kind: .download(DownloadPlan(destination: destination, resumingFrom: partialFile)))
    }

    // MARK: Callbacks

    /// Downloads `endpoint` to `destination`; calls `progress` as the body arrives and
    /// `completion` once, with the file's URL or the failure, on `queue` (default: the
    /// manager's callback queue, else the thread the event arrives on).
    ///
    /// - Returns: A handle whose `cancel()` cancels the download (nothing is left at the
    ///   destination) and whose `suspend()` / `resume()` pause it.
    @discardableResult
    public func download(
        _ endpoint: Endpoint, to destination: URL, resumingFrom partialFile: URL? = nil, queue: DispatchQueue? = nil,
        progress: ((TransferProgress) -> Void)? = nil, completion: @escaping (Response<URL>) -> Void
    ) -> DataRequest {
        deliver(
            downloadRecipe(endpoint, to: destination, resumingFrom: partialFile),
            serializer: FileDestinationSerializer(destination: destination), direction: .download, queue: queue,
            progress: progress, completion: completion)
    }

    /// Uploads `endpoint`'s body; calls `progress` as the body goes out and `completion`
    /// once, with the response decoded as `Value` or the failure, on `queue` (as
    /// `download` does).
    @discardableResult
    public func upload<Value: Decodable>(
        _ endpoint: Endpoint, as type: Value.Type = Value.self, queue: DispatchQueue? = nil,
        progress: ((TransferProgress) -> Void)? = nil, completion: @escaping (Response<Value>) -> Void
    ) -> DataRequest {
        deliver(
            ExecutionRecipe(client: self, endpoint: endpoint, kind: .upload),
            serializer: decodableSerializer(for: endpoint, as: type), direction: .upload, queue: queue,
            progress: progress, completion: completion)
    }

    private func deliver<Serializer: ResponseSerializer>(
        _ recipe: ExecutionRecipe, serializer: Serializer, direction: TransferDirection, queue: DispatchQueue?,
        progress: ((TransferProgress) -> Void)?, completion: @escaping (Response<Serializer.SerializedObject>) -> Void
    ) -> DataRequest {
        let handle = DataRequest(client: self, endpoint: recipe.endpoint)
        let sink = TransferCallbackSink<Serializer.SerializedObject>(
            queue: queue ?? manager.callbackQueue, handle: handle, direction: direction, progress: progress,
            completion: completion)
        var recipe = recipe
        recipe.control = handle
        recipe.start(sink, serializer: serializer)
        return handle
    }

    // MARK: async/await

    /// Downloads `endpoint` to `destination` and returns the file's URL once it is there;
    /// `progress` is called as the body arrives. Cancelling the task cancels the download
    /// (nothing is left at the destination).
    public func download(
        _ endpoint: Endpoint, to destination: URL, resumingFrom partialFile: URL? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> URL {
        try await AsyncExecution.value(
            of: downloadRecipe(endpoint, to: destination, resumingFrom: partialFile),
            serializer: FileDestinationSerializer(destination: destination), direction: .download, progress: progress)
    }

    /// Uploads `endpoint`'s body and returns the response decoded as `Value`; `progress`
    /// is called as the body goes out. Cancelling the task cancels the upload.
    public func upload<Value: Decodable>(
        _ endpoint: Endpoint, as type: Value.Type = Value.self, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> Value {
        try await AsyncExecution.value(
            of: ExecutionRecipe(client: self, endpoint: endpoint, kind: .upload),
            serializer: decodableSerializer(for: endpoint, as: type), direction: .upload, progress: progress)
    }
}

/// Which way a transfer's bytes go, for the forms that report one kind of progress.
enum TransferDirection: Sendable {
    case upload
    case download

    /// The progress of `progress` in this direction, if it is one.
    func progress(of progress: ExecutionProgress) -> TransferProgress? {
        switch (self, progress) {
        case (.upload, .uploadProgress(let step)), (.download, .downloadProgress(let step)): return step
        default: return nil
        }
    }
}

/// What the callback forms of transfers call: the progress handler or the completion.
enum TransferCallback<Value> {
    case progress(TransferProgress)
    case outcome(Response<Value>)
}

/// The callback form of a transfer's sink: progress to `progress`, the value or the
/// failure to `completion`, in order (see `CallbackDelivery`).
struct TransferCallbackSink<Value>: ExecutionSink, @unchecked Sendable {
    // @unchecked: the callbacks are the app's, called one at a time (see `CallbackDelivery`).
    private let direction: TransferDirection
    private let callbacks: CallbackDelivery<TransferCallback<Value>>

    init(
        queue: DispatchQueue?, handle: DataRequest, direction: TransferDirection,
        progress: ((TransferProgress) -> Void)?, completion: @escaping (Response<Value>) -> Void
    ) {
        self.direction = direction
        callbacks = CallbackDelivery(queue: queue, handle: handle) { callback in
            switch callback {
            case .progress(let step): progress?(step)
            case .outcome(let response): completion(response)
            }
        }
    }

    var reportsProgress: Bool { true }

    func progress(_ progress: ExecutionProgress) {
        if let step = direction.progress(of: progress) { callbacks.send(.progress(step)) }
    }

    func value(_ value: Value, extra: ResponseExtra) {
        callbacks.send(.outcome(.success(value: value, extra: extra)))
    }

    func end(_ error: Swift.Error?) {
        if let error { callbacks.send(.outcome(.failure(error)), closing: true) }
    }
}
