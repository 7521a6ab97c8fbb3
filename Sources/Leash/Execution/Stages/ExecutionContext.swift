import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
    /// Whether `retry(after:)` would run the execution again now: the manager's
    /// `maximumRetryCount` is not used up (see `Manager.allowsRetry(afterAttempt:)`).
    public var canRetry: Bool { client.manager.allowsRetry(afterAttempt: attempt) }
    /// The request the attempt began with, before an execution interceptor adapted it or a
    /// redirect replaced it: the same object at every stage of one attempt, so it
    /// identifies the attempt (`request` does not once it is replaced).
    package let attemptRequest: DataRequest
    /// Shared by every attempt of the execution (and handed to its interceptor chains).
    let marks: ExecutionMarks?
    /// The execution's end, if the manager has end observers: each context records
    /// itself there as the execution's latest.
    let ending: EndReport?

    init(
        client: Client, endpoint: Endpoint, request: DataRequest, attempt: Int, marks: ExecutionMarks? = nil,
        ending: EndReport? = nil, attemptRequest: DataRequest? = nil
    ) {
        self.client = client
        self.endpoint = endpoint
        self.request = request
        self.attempt = attempt
        self.attemptRequest = attemptRequest ?? request
        self.marks = marks
        self.ending = ending
        ending?.attemptBegan(self)
    }

    /// This context with `request` as the attempt's request (an execution interceptor
    /// adapted it, see `InterceptorChain.proceed(with:)`, or a redirect is followed); the
    /// same attempt, with the same `attemptRequest`.
    func replacingRequest(_ request: URLRequest) -> ExecutionContext {
        ExecutionContext(
            client: client, endpoint: endpoint, request: DataRequest(request), attempt: attempt, marks: marks,
            ending: ending, attemptRequest: attemptRequest)
    }

    /// Records `mark` for the whole execution: every later attempt sees it. For
    /// interceptors that act at most once per execution (refresh a credential and retry
    /// once), since each attempt composes them anew with a new context.
    ///
    /// - Returns: `true` if the execution had no such mark yet, `false` if an attempt
    ///   (this one or an earlier one) recorded it already.
    @discardableResult
    public func mark(_ mark: String) -> Bool {
        marks?.insert(mark) ?? true
    }

    /// Whether an attempt of this execution recorded `mark` (see `mark(_:)`).
    public func isMarked(_ mark: String) -> Bool {
        marks?.contains(mark) ?? false
    }

    /// A stream that restarts the execution from the start (a new attempt, with the
    /// request built anew and every interceptor run again). Values already handed back
    /// stay handed back. Past the manager's `maximumRetryCount` the execution fails with
    /// `LeashError.retryLimitExceeded`, whose `lastError` is `lastError`.
    ///
    /// - Parameter lastError: Why the attempt is retried (for example the 503 failure),
    ///   kept in the error that ends the execution if no retry is left.
    public func retry(after lastError: Swift.Error? = nil) -> Observable<Response<Data>> {
        .error(RetrySignal(lastError: lastError))
    }
}

/// Raised inside a pipeline to restart it; never reaches users: past the retry limit it
/// becomes `LeashError.retryLimitExceeded` with `lastError`.
struct RetrySignal: Swift.Error {
    let lastError: Swift.Error?
}

/// The marks of one execution (see `ExecutionContext.mark(_:)`); copies share them.
struct ExecutionMarks: Sendable {
    private let marks = LockedState<Set<String>>([])

    func insert(_ mark: String) -> Bool {
        marks.withLock { $0.insert(mark).inserted }
    }

    func contains(_ mark: String) -> Bool {
        marks.withLock { $0.contains(mark) }
    }
}
