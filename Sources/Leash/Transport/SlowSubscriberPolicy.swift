import Foundation

/// What `URLSessionTransport` does when a stream's subscriber (`client.rx.stream`,
/// `lines`, `serverSentEvents`) takes its chunks more slowly than they arrive.
///
/// Chunks wait for the subscriber up to `bufferLimit` bytes. Beyond that the connection
/// is held back: on Linux URLSession's queue waits for the subscriber, which stops
/// libcurl reading from the socket; on Apple platforms the task is suspended until the
/// subscriber is down to half the limit. TCP tells the server to wait, nothing is lost,
/// and memory stays flat however long the stream runs. A subscriber merely slower than the
/// network is held to its own pace this way.
///
/// Each stream has a session of its own, and on Apple platforms that keeps the wait to
/// that stream. On Linux, URLSession runs the work of all its sessions on one queue:
/// while a stream is held back, every other request of the process waits too (measured:
/// a request made while a subscriber was stuck answered only when it went on). So a hold
/// may be given a `longestHold`: a subscriber that takes nothing for that long ends its
/// stream with `LeashError.streamOverflow`, and the other requests go on. A reconnecting
/// Server-Sent Events stream then connects again after the last event it delivered.
public struct SlowSubscriberPolicy: Sendable, Equatable {
    /// The bytes that may wait for the subscriber before the connection is held back.
    public var bufferLimit: Int
    /// How long the connection may be held back without the subscriber taking a chunk
    /// before the stream ends with `LeashError.streamOverflow`; nil for no limit.
    public var longestHold: TimeInterval?

    /// A policy: see each property.
    public init(bufferLimit: Int = 1 << 20, longestHold: TimeInterval?) {
        self.bufferLimit = max(1, bufferLimit)
        self.longestHold = longestHold.map { $0.isFinite ? max(0, $0) : 0 }
    }

    /// Holds the connection back as long as the subscriber needs (Apple platforms'
    /// default).
    public static let holdBack = SlowSubscriberPolicy(longestHold: nil)

    /// On Linux, holds back for at most half a second without progress (the longest every
    /// other request of the process then waits), then ends the stream; elsewhere `holdBack`.
    public static var platformDefault: SlowSubscriberPolicy {
        URLSessionPlatform.current.sharesOneWorkQueue ? SlowSubscriberPolicy(longestHold: 0.5) : .holdBack
    }
}
