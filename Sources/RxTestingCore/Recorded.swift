import Rx

/// A value recorded at a virtual time: what a test observer saw, or what a test
/// observable will emit.
public struct Recorded<Value>: CustomDebugStringConvertible {
    /// The virtual time.
    public let time: TestTime
    /// The value.
    public let value: Value

    /// Records `value` at `time`.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }

    /// `value @ time`.
    public var debugDescription: String { "\(value) @ \(time)" }
}

extension Recorded: Sendable where Value: Sendable {}
extension Recorded: Equatable where Value: Equatable {}

extension Recorded {
    /// A `next` event at `time`.
    public static func next<T>(_ time: TestTime, _ element: T) -> Recorded<Event<T>> where Value == Event<T> {
        Recorded(time: time, value: .next(element))
    }

    /// A `completed` event at `time`; `type` names the element type where the context does
    /// not (`.completed(300, Int.self)`), as in RxTest.
    public static func completed<T>(_ time: TestTime, _ type: T.Type = T.self) -> Recorded<Event<T>>
    where Value == Event<T> {
        Recorded(time: time, value: .completed)
    }

    /// An `error` event at `time`; `type` names the element type where the context does not
    /// (`.error(300, error, Int.self)`), as in RxTest.
    public static func error<T>(_ time: TestTime, _ error: Swift.Error, _ type: T.Type = T.self)
        -> Recorded<Event<T>> where Value == Event<T>
    {
        Recorded(time: time, value: .error(error))
    }

    /// The given events, as an array (reads well in assertions).
    public static func events<T>(_ recordedEvents: Recorded<Event<T>>...) -> [Recorded<Event<T>>]
    where Value == Event<T> {
        recordedEvents
    }

    /// The given events, as an array.
    public static func events<T>(_ recordedEvents: [Recorded<Event<T>>]) -> [Recorded<Event<T>>]
    where Value == Event<T> {
        recordedEvents
    }
}
