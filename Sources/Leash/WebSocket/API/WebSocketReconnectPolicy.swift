import Foundation

/// When a WebSocket connects again after its connection ends (`WebSocketOptions.reconnect`).
///
/// Each reconnect is a whole new handshake through the pipeline, so it carries the current
/// token. The delay grows from `initialDelay` by `multiplier` up to `maximumDelay`, each
/// spread by ±`jitter` so that many clients dropped at once do not come back at once; a
/// connection that stayed open for `stablePeriod` resets it.
///
/// By default it reconnects after the connection was lost (1006: cut, or a dead peer), after
/// the server went away (1001) and after a server error or overload (1011–1013); not after
/// a normal close (1000), a policy violation (1008) or the other protocol codes, nor after
/// a handshake the server refused (a status other than 101), nor after a close the app asked
/// for (`WebSocket.close`), even one whose closing handshake was cut short (a 1006). A reconnect that cannot reach
/// the server (a transport error or a timeout) backs off and tries again; so does the first
/// connect with `retriesFirstConnect` (an app opened while offline), else it ends the stream.
public struct WebSocketReconnectPolicy: Sendable {
    /// Seconds before the first reconnect. Default 1.
    public var initialDelay: TimeInterval = 1
    /// The longest delay between reconnects, in seconds. Default 30.
    public var maximumDelay: TimeInterval = 30
    /// How much each delay grows over the last. Default 2.
    public var multiplier: Double = 2
    /// How much each delay is spread, as a fraction of it: 0.2 draws from 80% to 120%.
    /// Default 0.2.
    public var jitter: Double = 0.2
    /// How many reconnects in a row before giving up (the observable then completes after
    /// its last `closed`, or fails with the last handshake's error); `nil`: no limit.
    public var maximumAttempts: Int?
    /// Seconds a connection must stay open for the delays to start over. Default 30.
    public var stablePeriod: TimeInterval = 30
    /// Which closes are reconnected after (see the type's documentation for the default).
    public var reconnectsAfter: @Sendable (WebSocketClose) -> Bool = WebSocketReconnectPolicy.isTransient
    /// Whether a first connect that cannot reach the server (a transport error, such as
    /// `URLError.cannotConnectToHost` or `.notConnectedToInternet`, or a timeout) is tried
    /// again under the same backoff, with `.reconnecting` events, as a reconnect is. A
    /// handshake the server refused (a status other than 101) still ends the stream.
    /// Default `false`: the first connect's failure ends it, so that an app learns at once
    /// that the server is not there.
    public var retriesFirstConnect = false

    /// The defaults above.
    public init() {}

    /// The default `reconnectsAfter`: 1001, 1006 and 1011–1013.
    public static func isTransient(_ close: WebSocketClose) -> Bool {
        switch close.code.rawValue {
        case 1001, 1006, 1011...1013: return true
        default: return false
        }
    }

    /// The delay before reconnect number `attempt` (1 for the first), with `random` a draw
    /// in 0...1 that spreads it.
    func delay(attempt: Int, random: Double) -> TimeInterval {
        let base = initialDelay * pow(max(multiplier, 1), Double(max(attempt - 1, 0)))
        let capped = min(base, maximumDelay)
        let spread = min(max(jitter, 0), 1)
        return max(0, capped * (1 - spread + 2 * spread * random))
    }
}
