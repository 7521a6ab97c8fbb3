import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What happens during one execution, as it happens: what `client.rx.events` emits (with
/// `import RxLeash`); the callback, async and Rx forms all run the same pipeline.
public enum ExecutionEvent<Value> {
    /// The request was built (URL, headers, credential, parameters).
    case requestPrepared(URLRequest, attempt: Int)
    /// The request went to the transport.
    case requestSent(URLRequest, attempt: Int)
    /// Bytes of the request's body sent so far (uploads; reported as the body goes out,
    /// at most 20 times a second, the last one with every byte).
    case uploadProgress(TransferProgress)
    /// Bytes of the response's body received so far (likewise).
    case downloadProgress(TransferProgress)
    /// The transport received a response (before validation). A download's `data` is
    /// empty: its body is in a file.
    case responseReceived(HTTPURLResponse, data: Data, attempt: Int)
    /// An interceptor asked for a retry; `attempt` is the attempt about to start.
    case retrying(attempt: Int)
    /// A value: from the network, or from an interceptor (`extra.source`).
    case value(Value, extra: ResponseExtra)
}

extension ExecutionEvent: @unchecked Sendable where Value: Sendable {}

extension ExecutionEvent {
    /// The value of a `.value` event.
    public var value: Value? {
        if case .value(let value, _) = self { return value }
        return nil
    }

    /// The progress of an `.uploadProgress` or `.downloadProgress` event.
    public var transferProgress: TransferProgress? {
        switch self {
        case .uploadProgress(let progress), .downloadProgress(let progress): return progress
        default: return nil
        }
    }

    /// The value and its details, for `.value` events.
    public var response: Response<Value>? {
        if case .value(let value, let extra) = self { return .success(value: value, extra: extra) }
        return nil
    }
}
