import Foundation
import Rx

/// What an `OperatorInterceptor` knows about the execution it is part of.
public final class ExecutionContext: @unchecked Sendable {
    // @unchecked: immutable; `endpoint` is the app's value, only read.

    /// The client executing.
    public let client: Client
    /// The endpoint executed.
    public let endpoint: Endpoint
    /// The request of this attempt.
    public let request: DataRequest
    /// Which attempt this is, from 1.
    public let attempt: Int

    init(client: Client, endpoint: Endpoint, request: DataRequest, attempt: Int) {
        self.client = client
        self.endpoint = endpoint
        self.request = request
        self.attempt = attempt
    }

    /// A stream that restarts the execution from the start (a new attempt, with the
    /// request built anew). Values already handed back stay handed back. Past the
    /// manager's `maximumRetryCount` it fails with `LeashError.retryLimitExceeded`.
    public func retry() -> Observable<Response<Data>> {
        .error(RetrySignal())
    }
}

/// Raised inside a pipeline to restart it; never reaches users.
struct RetrySignal: Swift.Error {}
