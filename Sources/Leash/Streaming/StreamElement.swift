import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a stream execution hands the stream forms: the accepted head, then the body's
/// chunks as they arrive; or a whole body at once (an interceptor's answer, or a transport
/// that cannot stream).
enum StreamElement: @unchecked Sendable {
    // @unchecked: HTTPURLResponse is immutable but not Sendable on every platform.

    /// The head passed the success interceptors and validation: chunks follow.
    case head(HTTPURLResponse)
    /// The next bytes of the body. Never empty.
    case chunk(Data)
    /// A body that came whole, with its head if it has one.
    case whole(HTTPURLResponse?, Data)
}

extension Client {
    /// `endpoint`'s execution as a stream: its body's chunks as they arrive, through the
    /// whole pipeline (authenticator, interceptors, token refresh, retries), with the time
    /// limits of a transfer (see `ExecutionPipeline.limits`). `adaptRequest` changes each
    /// attempt's request once built (a stream's own headers).
    func streamElements(
        _ endpoint: Endpoint, adaptRequest: (@Sendable (inout URLRequest) -> Void)? = nil
    ) -> Observable<StreamElement> {
        var pipeline = ExecutionPipeline(
            client: self, endpoint: endpoint, serializer: DataResponseSerializer(), kind: .stream)
        pipeline.adaptRequest = adaptRequest
        return pipeline.streamElements()
    }
}

extension ExecutionPipeline where Serializer == DataResponseSerializer {
    /// The execution's head and chunks (see `StreamElement`): chunks go straight from the
    /// attempt to the subscriber, through the same `SerialObserver` as the end, so they
    /// come in order and never concurrently.
    func streamElements() -> Observable<StreamElement> {
        let pipeline = self
        return Observable<StreamElement>.create { observer in
            let output = SerialObserver(observer)
            let progress = ProgressSink { progress in
                switch progress {
                case .streamOpened(let head): output.onNext(.head(head))
                case .bodyChunk(let chunk): output.onNext(.chunk(chunk))
                default: break
                }
            }
            return pipeline.subscribe(output, progress: progress) { stages in
                pipeline.run(attempt: 1, stages: stages).compactMap { response -> StreamElement? in
                    switch response {
                    case .success(let data, let extra):
                        // A streamed body ends with an empty value; any other value is a
                        // body that came whole.
                        let details = extra as? ResponseExtra
                        if data.isEmpty && details?.source == .network { return nil }
                        return .whole(details?.httpResponse, data)
                    case .failure(let error):
                        throw error
                    }
                }
            }
        }
    }
}
