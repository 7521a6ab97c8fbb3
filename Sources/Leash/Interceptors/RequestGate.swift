import Rx

/// Holds executions back before their request is built, until a condition holds: a
/// credential being refreshed, a permission being asked for (Swifty's "constraints").
///
/// The manager asks each of its gates before every attempt of every execution, before the
/// request is built (so the request carries whatever the wait produced, such as a new
/// credential, and execution interceptors see it already built):
///
/// ```swift
/// struct WhileMigrating: RequestGate {
///     let migration: MigrationState
///     func admission(for endpoint: Endpoint, attempt: Int) -> Completable? {
///         migration.isRunning ? migration.finished : nil
///     }
/// }
/// let manager = try Manager.Builder().url(baseURL).gate(WhileMigrating(migration: state)).build()
/// ```
///
/// A wait counts towards the execution's timeout, and disposing the execution disposes its
/// subscription to the wait.
public protocol RequestGate: Sendable {
    /// What attempt `attempt` of `endpoint` must wait for before its request is built:
    /// `nil` to go at once (the common case), or a completable that completes when the
    /// request may go. If it fails, the execution fails with its
    /// error (interceptors do not see it).
    ///
    /// Called on the thread that starts the attempt; must not block.
    func admission(for endpoint: Endpoint, attempt: Int) -> Completable?
}
