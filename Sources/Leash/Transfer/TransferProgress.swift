/// How far the bytes of a transfer have come: an upload's body sent, or a download's
/// body received.
///
/// ```swift
/// client.rx.download(Report(), to: destination)
///     .subscribe(onNext: { transfer in
///         if case .progress(let progress) = transfer { bar.value = progress.fraction ?? 0 }
///     })
/// ```
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes moved so far (a resumed download counts the bytes it already had).
    public let completedBytes: Int64
    /// The bytes the whole body has, if known (`Content-Length`, a file's size).
    public let expectedBytes: Int64?

    /// Progress of `completedBytes` out of `expectedBytes`.
    public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = max(0, completedBytes)
        self.expectedBytes = expectedBytes.map { max(0, $0) }
    }

    /// The part done, from 0 to 1; `nil` while the size is unknown.
    public var fraction: Double? {
        guard let expectedBytes else { return nil }
        guard expectedBytes > 0 else { return 1 }
        return min(1, Double(completedBytes) / Double(expectedBytes))
    }

    /// Whether every expected byte moved.
    public var isComplete: Bool {
        expectedBytes.map { completedBytes >= $0 } ?? false
    }

    /// `"512 of 1024 bytes (50%)"`, or `"512 bytes"` when the size is unknown.
    public var description: String {
        guard let expectedBytes, let fraction else { return "\(completedBytes) bytes" }
        return "\(completedBytes) of \(expectedBytes) bytes (\(Int((fraction * 100).rounded(.down)))%)"
    }
}
