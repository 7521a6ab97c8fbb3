import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of `URLSessionTransport`'s session for plain requests (completion-handler
/// tasks, whose answers never come here). It:
/// - declines every redirect, so the 3xx is the task's response: Leash's pipeline follows
///   redirects itself (see `RedirectPolicy`), keeping a 307/308's body, which URLSession
///   on Linux drops;
/// - keeps the metrics URLSession collects for a task (Apple platforms) in the task's
///   `TaskReport`, for its completion handler to hand on;
/// - evaluates server trust against the transport's `ServerTrustPolicy` for the host
///   (Apple platforms: see `Trust/ServerTrustPolicy.swift`).
///
/// FoundationNetworking asks a session's delegate about redirects of completion-handler
/// tasks too (a delegate given to one task only is never asked: see LINUX-URLSESSION.md).
///
/// `TransferDelegate` declines redirects and takes metrics the same way, in a few lines of
/// its own rather than from a shared superclass: on Linux a subclass's delegate methods
/// are not seen through a protocol conformance its superclass declared (the superclass's
/// defaults answer instead), and splitting the conformance would need `@objc` on Apple
/// platforms, which Linux cannot compile.
final class PlainSessionDelegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    // @unchecked: `reports` is behind `lock`; `trust` is immutable.
    private let lock = Lock()
    private var reports: [Int: TaskReport] = [:]
    /// How servers' certificates are judged, per host (Apple platforms).
    let trust: ServerTrust

    init(trust: ServerTrust) {
        self.trust = trust
    }

    /// Whether tasks need a `TaskReport`: where URLSession collects metrics, or a trust
    /// policy can fail a task. Elsewhere (Linux) the completion handler skips the
    /// bookkeeping altogether.
    var needsReports: Bool {
        URLSessionPlatform.current.collectsMetrics || !trust.isEmpty
    }

    /// Keeps what the delegate learns about `task` in `report`, until `finished(_:)`.
    func register(_ report: TaskReport, for task: URLSessionTask) {
        report.taskIdentifier = task.taskIdentifier
        lock.withLock { reports[task.taskIdentifier] = report }
    }

    /// The task of `report` ended: the delegate forgets it (what arrives later is dropped).
    func finished(_ report: TaskReport) {
        _ = lock.withLock { reports.removeValue(forKey: report.taskIdentifier) }
    }

    func report(for task: URLSessionTask) -> TaskReport? {
        lock.withLock { reports[task.taskIdentifier] }
    }

    /// How many tasks' reports are kept (for tests: 0 once every task ended).
    var reportCount: Int { lock.withLock { reports.count } }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        report(for: task)?.record(TransportMetrics(metrics))
    }
}

/// What the session's delegate learned about one task, read by its completion handler:
/// its metrics, and a trust failure that explains a cancelled task.
final class TaskReport: @unchecked Sendable {
    // @unchecked: `metrics` and `trustFailure` are behind `lock`; `taskIdentifier` is set
    // once, before the task starts.
    private let lock = Lock()
    private var metricsValue: TransportMetrics?
    private var trustFailureValue: LeashError?
    var taskIdentifier = 0

    func record(_ metrics: TransportMetrics) {
        lock.withLock { metricsValue = metrics }
    }

    func record(trustFailure: LeashError) {
        lock.withLock { trustFailureValue = trustFailure }
    }

    var metrics: TransportMetrics? { lock.withLock { metricsValue } }
    var trustFailure: LeashError? { lock.withLock { trustFailureValue } }
}
