import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The stub scripts' delays were `RxTimeInterval`s before 1.0, the one place in Leash's API
// that did not measure time in seconds. These spellings stay for one release. Their
// intervals are required (no default), so that a call without one is never ambiguous.

extension StubResponse {
    /// A response, its delay an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data(), delay: RxTimeInterval) {
        self.init(status: status, headers: headers, body: body, delay: delay.seconds)
    }

    /// A JSON body, its delay an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func json(_ body: String, status: Int = 200, delay: RxTimeInterval) -> StubResponse {
        .json(body, status: status, delay: delay.seconds)
    }

    /// A JSON body encoded from `value`, its delay an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func json<Value: Encodable>(
        encoding value: Value, status: Int = 200, encoder: JSONEncoder? = nil, delay: RxTimeInterval
    ) -> StubResponse {
        .json(encoding: value, status: status, encoder: encoder, delay: delay.seconds)
    }

    /// A text body, its delay an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func text(_ body: String, status: Int = 200, delay: RxTimeInterval) -> StubResponse {
        .text(body, status: status, delay: delay.seconds)
    }

    /// A status with an empty body, its delay an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func status(_ code: Int, delay: RxTimeInterval) -> StubResponse {
        .status(code, delay: delay.seconds)
    }

    /// `204 No Content`, its delay an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func empty(delay: RxTimeInterval) -> StubResponse {
        .empty(delay: delay.seconds)
    }

    /// A transport failure, its delay an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func error(_ code: URLError.Code, delay: RxTimeInterval) -> StubResponse {
        .error(code, delay: delay.seconds)
    }

    /// The same answer in progress steps, their interval an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public func progress(steps: Int, every interval: RxTimeInterval) -> StubResponse {
        progress(steps: steps, every: interval.seconds)
    }

    /// A streamed body, its interval an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func chunks(
        _ chunks: [Data], every interval: RxTimeInterval, status: Int = 200,
        headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
    ) -> StubResponse {
        .chunks(chunks, every: interval.seconds, status: status, headers: headers)
    }

    /// A streamed text body, its interval an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func chunks(
        _ chunks: [String], every interval: RxTimeInterval, status: Int = 200,
        contentType: String = "text/plain; charset=utf-8"
    ) -> StubResponse {
        .chunks(chunks, every: interval.seconds, status: status, contentType: contentType)
    }

    /// A newline-delimited JSON stream, its interval an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func lines<Value: Encodable>(
        _ values: [Value], every interval: RxTimeInterval, encoder: JSONEncoder = JSONEncoder()
    ) -> StubResponse {
        .lines(values, every: interval.seconds, encoder: encoder)
    }

    /// A Server-Sent Events stream, its interval an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public static func serverSentEvents(
        _ events: [ServerSentEvent], every interval: RxTimeInterval, retry milliseconds: Int? = nil
    ) -> StubResponse {
        .serverSentEvents(events, every: interval.seconds, retry: milliseconds)
    }

    /// The same answer after an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public func delayed(_ delay: RxTimeInterval) -> StubResponse {
        delayed(delay.seconds)
    }
}

extension StubWebSocketPeer {
    /// Runs `action` after an `RxTimeInterval`.
    @available(
        *, deprecated, message: "Leash measures time in seconds: write .seconds(2) as 2, .milliseconds(120) as 0.12"
    )
    public func after(_ delay: RxTimeInterval, _ action: @escaping @Sendable () -> Void) {
        after(delay.seconds, action)
    }
}
