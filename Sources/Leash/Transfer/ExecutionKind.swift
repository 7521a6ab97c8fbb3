/// What an execution does with its bytes, which decides its time limits and where its
/// body goes.
enum ExecutionKind: Sendable {
    /// A request: its response's body in memory (`execute`, `events`, `single`…).
    case request
    /// An upload: its progress reported; it lasts as long as its bytes keep moving.
    case upload
    /// A download to a file; likewise.
    case download(DownloadPlan)

    /// Whether the execution is an upload or a download (see `ExecutionPipeline.limits`).
    var isTransfer: Bool {
        if case .request = self { return false }
        return true
    }
}
