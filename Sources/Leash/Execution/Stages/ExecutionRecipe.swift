import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What to execute and how: a plain value, made by each form (`Client.execute`,
/// `client.rx.execute`, the transfers and streams) and turned into one `Execution` per
/// subscription by `start(_:serializer:)`.
///
/// It holds no state of a run: every subscription of a cold stream starts from the same
/// recipe anew.
struct ExecutionRecipe: @unchecked Sendable {
    // @unchecked: immutable; the endpoint is the app's value, only read.

    let client: Client
    let endpoint: Endpoint
    /// A request, an upload, a download or a stream.
    var kind: ExecutionKind = .request
    /// What suspends and resumes the execution (the callback forms' handle), if anything.
    var control: DataRequest?
    /// Changes each attempt's request once it is built (a stream's `Last-Event-ID` and
    /// `Accept`), before the execution interceptors see it.
    var adaptRequest: (@Sendable (inout URLRequest) -> Void)?
    /// Where the transport hands its answer, if not on its own queue (the `async` form's
    /// task).
    var handoff: ResponseHandoff?

    init(client: Client, endpoint: Endpoint, kind: ExecutionKind = .request) {
        self.client = client
        self.endpoint = endpoint
        self.kind = kind
    }

    var manager: Manager { client.manager }

    /// Starts one execution of this recipe, delivering to `sink` through `serializer`;
    /// the execution is the subscription (disposing it cancels what is in flight).
    @discardableResult
    func start<Serializer: ResponseSerializer, Sink: ExecutionSink>(_ sink: Sink, serializer: Serializer)
        -> Execution where Sink.Value == Serializer.SerializedObject
    {
        let outlet = ExecutionOutlet(serializer: serializer, sink: sink, interceptors: manager.interceptorSet)
        let execution = Execution(recipe: self, outlet: outlet, reportsProgress: sink.reportsProgress)
        execution.start()
        return execution
    }

    // MARK: Time limits

    /// Timeouts longer than this (about 31 years) are no timeout: the milliseconds would
    /// not fit the timer's interval.
    static var longestTimeout: TimeInterval { 1e9 }

    /// A deadline for one execution, if the recipe has a limit.
    func makeDeadline() -> ExecutionDeadline? {
        let limits = self.limits
        return limits.isEmpty ? nil : ExecutionDeadline(limits: limits, manager: manager)
    }

    /// The execution's time limits: the whole-execution timeout (the endpoint's, else the
    /// manager's) and the idle timeout (likewise).
    ///
    /// Uploads, downloads and streams are meant to last as long as their bytes keep
    /// moving: the manager's `timeout` bounds each stall of theirs (as an idle limit,
    /// unless an idle timeout is set), not the whole transfer; an endpoint's own `timeout`
    /// still bounds the whole of it.
    var limits: ExecutionDeadline.Limits {
        let idle = Self.limit(endpoint.idleTimeout ?? manager.idleTimeout)
        guard kind.boundsStalls else {
            return ExecutionDeadline.Limits(whole: Self.limit(endpoint.timeout ?? manager.timeout), idle: idle)
        }
        return ExecutionDeadline.Limits(whole: Self.limit(endpoint.timeout), idle: idle ?? Self.limit(manager.timeout))
    }

    /// `seconds` as a limit: none unless positive, finite and below `longestTimeout`.
    private static func limit(_ seconds: TimeInterval?) -> TimeInterval? {
        guard let seconds, seconds.isFinite, seconds > 0, seconds < longestTimeout else { return nil }
        return seconds
    }

    // MARK: Transfers

    /// The transfer state of one execution, if it may need the transport's `transfer`:
    /// uploads, downloads, progress reported, an idle limit, or a method that carries a
    /// body (which may come from a file). Plain requests have none and keep the fast path.
    func makeTransfer(reportsProgress: Bool, deadline: ExecutionDeadline?) -> ExecutionTransfer? {
        let idle = deadline?.limits.idle != nil
        let download: DownloadPlan?
        switch kind {
        case .request:
            guard reportsProgress || idle || endpoint.method.allowsBody else { return nil }
            download = nil
        case .download(let plan):
            download = plan
        case .upload, .stream:
            download = nil
        case .webSocket:
            // The upgrade is its own transport: no body, no progress, no file.
            return nil
        }
        // A stream's chunks are its progress (and what keeps its idle limit from firing).
        let reports = !kind.isStream && (reportsProgress || idle)
        return ExecutionTransfer(
            reportsProgress: reports, download: download, streams: kind.isStream, scheduler: manager.scheduler,
            directory: manager.transferDirectory)
    }

    // MARK: Building the request

    /// Builds the request of one attempt: the endpoint's, adapted by `adaptRequest`.
    func urlRequest() throws -> URLRequest {
        var request = try client.urlRequest(for: endpoint)
        adaptRequest?(&request)
        return request
    }

    /// What a redirect does (the endpoint's policy, else the manager's): read when a
    /// redirect arrives, not for every execution.
    var redirectPolicy: RedirectPolicy {
        endpoint.redirectPolicy ?? manager.redirectPolicy
    }

    /// The status codes that are values; any other is `LeashError.unacceptableStatusCode`.
    var acceptableStatusCodes: Set<Int> {
        // A WebSocket's handshake succeeds with a 101 and nothing else (RFC 6455 §4.1).
        if kind.webSocketUpgrade != nil { return [101] }
        return endpoint.acceptableStatusCodes ?? manager.acceptableStatusCodes
    }
}
