/// What an execution does with its bytes, which decides its time limits and where its
/// body goes.
enum ExecutionKind: Sendable {
    /// A request: its response's body in memory (`execute`, `events`, `single`…).
    case request
    /// An upload: its progress reported; it lasts as long as its bytes keep moving.
    case upload
    /// A download to a file; likewise.
    case download(DownloadPlan)
    /// A stream: its response's body handed on in chunks as it arrives (`client.rx.stream`,
    /// `lines`, `serverSentEvents`); it lasts as long as its bytes keep coming.
    case stream

    /// Whether the execution's bytes keep moving for as long as it lasts (an upload, a
    /// download or a stream): its manager's timeout then bounds each stall, not the whole
    /// (see `ExecutionRecipe.limits`).
    var boundsStalls: Bool {
        if case .request = self { return false }
        return true
    }

    /// Whether the execution is a stream.
    var isStream: Bool {
        if case .stream = self { return true }
        return false
    }
}
