/// When a test observable was subscribed and unsubscribed, in virtual time.
public struct Subscription: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
    /// The time of subscription.
    public let subscribe: TestTime
    /// The time of unsubscription; `Int.max` while still subscribed.
    public let unsubscribe: TestTime

    /// A subscription still open.
    public init(_ subscribe: TestTime) {
        self.subscribe = subscribe
        self.unsubscribe = Int.max
    }

    /// A subscription from `subscribe` to `unsubscribe`.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// `(subscribe : unsubscribe)`, with `Infinity` for an open subscription: RxTest's
    /// format, so that failure messages read as they did there.
    public var debugDescription: String {
        let end = unsubscribe == Int.max ? "Infinity" : String(unsubscribe)
        return "(\(subscribe) : \(end))"
    }
}
