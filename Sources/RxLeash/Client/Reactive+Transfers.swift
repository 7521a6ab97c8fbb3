import Dispatch
import Foundation
import Leash
import Rx

/// `client.rx.upload` and `client.rx.download`: a transfer as an `Observable` of
/// `Transfer` elements: `.progress` as the bytes move (at most 20 a second, the last one
/// with every byte), then `.completed` with the value.
///
/// Cold like every `client.rx` form: subscribing starts the transfer, disposing cancels
/// it (a download then leaves nothing at its destination). The same pipeline as every
/// request: authenticator, interceptors, token refresh, retries (a download resumes
/// where its dropped connection left it), timeouts.
///
/// ```swift
/// client.rx.download(Report(), to: destination)
///     .subscribe(onNext: { transfer in
///         switch transfer {
///         case .progress(let progress): print(progress)
///         case .completed(let file): print("saved to", file.path)
///         }
///     })
///     .disposed(by: disposeBag)
/// ```
extension Reactive where Base: Client {
    /// Uploads `endpoint`'s body (its `parameters`: `Data`, `UploadFile`,
    /// `MultipartFormData`, `FormURLEncoded` or any `Encodable`), emitting its progress
    /// and then the response decoded as `Value`.
    ///
    /// - Parameters:
    ///   - endpoint: What to upload.
    ///   - type: The type the response decodes to; inferred from the context when omitted.
    ///   - queue: Where to deliver the elements (default: as `execute`).
    /// - Returns: A cold observable of the upload's progress and its value.
    public func upload<Value: Decodable>(
        _ endpoint: Endpoint, type: Value.Type = Value.self, queue: DispatchQueue? = nil
    ) -> Observable<Transfer<Value>> {
        delivered(TransferElements.of(base.uploadEventStream(endpoint, as: type), uploads: true), queue: queue)
    }

    /// Uploads `endpoint`'s body, emitting its progress and then the response as
    /// `serializer` makes it.
    public func upload<Serializer: ResponseSerializer>(
        _ endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil
    ) -> Observable<Transfer<Serializer.SerializedObject>> {
        delivered(
            TransferElements.of(base.uploadEventStream(endpoint, serializer: serializer), uploads: true), queue: queue)
    }

    /// Downloads `endpoint` to `destination`, emitting the progress of the body as it
    /// arrives and then `.completed` with the destination, once the file is there.
    ///
    /// - Parameters:
    ///   - endpoint: What to download.
    ///   - destination: Where the file goes (its folder is created; a file there is
    ///     replaced), once the download is complete and its status accepted.
    ///   - partialFile: The first bytes of the body from an earlier download: copied, and
    ///     the rest asked for with `Range`.
    ///   - queue: Where to deliver the elements (default: as `execute`).
    /// - Returns: A cold observable of the download's progress and its file.
    public func download(
        _ endpoint: Endpoint, to destination: URL, resumingFrom partialFile: URL? = nil, queue: DispatchQueue? = nil
    ) -> Observable<Transfer<URL>> {
        delivered(
            TransferElements.of(
                base.downloadEventStream(endpoint, to: destination, resumingFrom: partialFile), uploads: false),
            queue: queue)
    }
}

/// An execution's events as a transfer's elements.
enum TransferElements {
    /// The progress of the upload (or of the download) and the values of `events`.
    static func of<Value>(_ events: Observable<ExecutionEvent<Value>>, uploads: Bool) -> Observable<Transfer<Value>> {
        events.compactMap { event in
            switch event {
            case .uploadProgress(let progress): return uploads ? .progress(progress) : nil
            case .downloadProgress(let progress): return uploads ? nil : .progress(progress)
            case .value(let value, _): return .completed(value)
            default: return nil
            }
        }
    }
}
