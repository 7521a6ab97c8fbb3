/// One element of an upload or a download: progress while the bytes move, then the
/// outcome.
///
/// `client.rx.upload(endpoint, type:)` emits `.progress` events as the body is sent, then
/// `.completed` with the decoded response; `client.rx.download(endpoint, to:)` emits
/// `.progress` as the body arrives, then `.completed` with the file's URL. The last
/// `.progress` always reports every byte.
public enum Transfer<Value> {
    /// Bytes moved.
    case progress(TransferProgress)
    /// The transfer is over: its value (the decoded response, or the downloaded file).
    case completed(Value)

    /// The progress of a `.progress` element.
    public var progress: TransferProgress? {
        if case .progress(let progress) = self { return progress }
        return nil
    }

    /// The value of a `.completed` element.
    public var value: Value? {
        if case .completed(let value) = self { return value }
        return nil
    }
}

extension Transfer: Sendable where Value: Sendable {}
extension Transfer: Equatable where Value: Equatable {}
extension Transfer: Hashable where Value: Hashable {}
