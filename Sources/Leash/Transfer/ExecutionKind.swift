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
    /// A WebSocket's upgrade: its request goes through `upgrade` instead of the manager's
    /// transport, and only `101 Switching Protocols` is a value.
    case webSocket(WebSocketUpgrade)

    /// Whether the execution's bytes keep moving for as long as it lasts (an upload, a
    /// download or a stream): its manager's timeout then bounds each stall, not the whole
    /// (see `ExecutionRecipe.limits`).
    var boundsStalls: Bool {
        switch self {
        case .request, .webSocket: return false
        case .upload, .download, .stream: return true
        }
    }

    /// Whether the execution is a stream.
    var isStream: Bool {
        if case .stream = self { return true }
        return false
    }

    /// The upgrade of a WebSocket's handshake, if this is one.
    var webSocketUpgrade: WebSocketUpgrade? {
        if case .webSocket(let upgrade) = self { return upgrade }
        return nil
    }

    /// Whether the execution opens a connection of its own (a stream, a WebSocket), which
    /// never waits for a place among the manager's concurrent requests.
    var hasOwnConnection: Bool {
        switch self {
        case .stream, .webSocket: return true
        case .request, .upload, .download: return false
        }
    }
}
