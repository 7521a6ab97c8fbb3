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
    /// limits of a transfer (see `ExecutionRecipe.limits`). `adaptRequest` changes each
    /// attempt's request once built (a stream's own headers).
    func streamElements(
        _ endpoint: Endpoint, adaptRequest: (@Sendable (inout URLRequest) -> Void)? = nil
    ) -> Observable<StreamElement> {
        var stream = ExecutionRecipe(client: self, endpoint: endpoint, kind: .stream)
        stream.adaptRequest = adaptRequest
        let recipe = stream
        return Observable.create { observer in
            recipe.start(StreamElementSink(observer: observer), serializer: DataResponseSerializer())
        }
    }
}

/// The subscriber of a stream execution: the accepted head and the chunks (its progress),
/// then a body that came whole, if any.
private struct StreamElementSink: ExecutionSink {
    let observer: AnyObserver<StreamElement>

    var reportsProgress: Bool { true }

    func progress(_ progress: ExecutionProgress) {
        switch progress {
        case .streamOpened(let head): observer.onNext(.head(head))
        case .bodyChunk(let chunk): observer.onNext(.chunk(chunk))
        default: break
        }
    }

    func value(_ data: Data, extra: ResponseExtra) {
        // A streamed body ends with an empty value; any other value is a body that came
        // whole.
        if data.isEmpty && extra.source == .network { return }
        observer.onNext(.whole(extra.httpResponse, data))
    }

    func end(_ error: Swift.Error?) {
        if let error { observer.onError(error) } else { observer.onCompleted() }
    }
}
