/// What `URLSessionTransport` does when a stream's subscriber (`client.rx.stream`,
/// `lines`, `serverSentEvents`) takes its chunks more slowly than they arrive.
///
/// The chunks wait for the subscriber, up to a limit. Beyond it there are two honest
/// choices, and which one is right depends on the platform:
///
/// - `holdBack`: URLSession's queue waits for the subscriber, which stops reading from
///   the socket: TCP tells the server to wait, and nothing is lost. Each stream has a
///   session of its own, and on Apple platforms that keeps the wait to that stream. On
///   Linux, URLSession runs the work of all its sessions on one queue: every other
///   request of the process waits too (measured: a request made meanwhile answered only
///   when the subscriber went on).
/// - `fail`: the stream ends with `LeashError.streamOverflow`, after the chunks the
///   subscriber took; other requests never wait. A reconnecting Server-Sent Events stream
///   connects again and goes on after the last event it delivered (`Last-Event-ID`).
///
/// Either way memory stays flat, however long the stream runs.
public enum SlowSubscriberPolicy: Sendable, Equatable {
    /// Holds the connection back once `bytes` wait for the subscriber.
    case holdBack(afterBytes: Int)
    /// Ends the stream with `LeashError.streamOverflow` once more than `bytes` wait.
    case fail(afterBytes: Int)

    /// `.fail(afterBytes: 8 MB)` on Linux, where holding back would stall every request
    /// of the process; `.holdBack(afterBytes: 1 MB)` on Apple platforms.
    public static var platformDefault: SlowSubscriberPolicy {
        #if canImport(FoundationNetworking)
            return .fail(afterBytes: 8 << 20)
        #else
            return .holdBack(afterBytes: 1 << 20)
        #endif
    }

    /// The bytes that may wait for the subscriber.
    var limit: Int {
        switch self {
        case .holdBack(let bytes), .fail(let bytes): return max(1, bytes)
        }
    }
}
