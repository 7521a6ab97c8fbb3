import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Progress of an execution, whatever its value type (see `ExecutionEvent`).
enum ExecutionProgress: @unchecked Sendable {
    // URLRequest/HTTPURLResponse/Data are immutable values here.
    case requestPrepared(URLRequest, attempt: Int)
    case requestSent(URLRequest, attempt: Int)
    case responseReceived(HTTPURLResponse, data: Data, attempt: Int)
    case retrying(attempt: Int)
    case uploadProgress(TransferProgress)
    case downloadProgress(TransferProgress)
    /// A stream's head passed the success interceptors and validation: its chunks follow.
    case streamOpened(HTTPURLResponse)
    /// The next bytes of a stream's body.
    case bodyChunk(Data)
}

extension ExecutionEvent {
    /// The event reporting `progress`; nil for what the events form does not report (a
    /// stream's head and chunks, which only the stream forms ask for).
    init?(progress: ExecutionProgress) {
        switch progress {
        case .requestPrepared(let request, let attempt): self = .requestPrepared(request, attempt: attempt)
        case .requestSent(let request, let attempt): self = .requestSent(request, attempt: attempt)
        case .responseReceived(let response, let data, let attempt):
            self = .responseReceived(response, data: data, attempt: attempt)
        case .retrying(let attempt): self = .retrying(attempt: attempt)
        case .uploadProgress(let progress): self = .uploadProgress(progress)
        case .downloadProgress(let progress): self = .downloadProgress(progress)
        case .streamOpened, .bodyChunk: return nil
        }
    }
}
