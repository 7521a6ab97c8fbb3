import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How an `Outbox` sends its items and decides what a failed attempt means.
///
/// ```swift
/// var options = OutboxOptions()
/// options.initialRetryDelay = 2
/// options.maximumAttempts = 10
/// let outbox = try Outbox(client: client, storedAt: fileURL, options: options)
/// ```
///
/// The defaults classify an attempt's outcome as follows:
///
/// | outcome | what the outbox does |
/// |---|---|
/// | 2xx | delivered: the item leaves the store |
/// | 408, 409, 425, 429, 5xx | retried after a backoff (`Retry-After` honoured) |
/// | timeout, connection lost or refused, no network, no answer | retried after a backoff |
/// | 401 (after the manager's refresher had its go) | waits and retries; never fails the item, never counts |
/// | any other status | permanent: the item stays as `.failed` and its lane goes on |
public struct OutboxOptions: Sendable {
    /// The header that carries each item's idempotency key, on every attempt; `nil` sends
    /// no key (delivery is then at least once, and a lost response means a second effect).
    public var idempotencyKeyHeader: String? = "Idempotency-Key"
    /// The wait before the first retry, in seconds; each retry after it waits twice as long.
    public var initialRetryDelay: TimeInterval = 1
    /// The longest wait between two attempts, in seconds, whatever the backoff or a
    /// server's `Retry-After` says.
    public var maximumRetryDelay: TimeInterval = 300
    /// How many sends an item gets before it fails for good; `nil`: no limit. Sends whose
    /// credential was refused (401) do not count.
    public var maximumAttempts: Int? = nil
    /// How much each backoff wait varies at random, as a fraction of it: 0.2 waits between
    /// 80% and 120% of the doubling delay, so that clients coming back online do not all
    /// retry at the same instant. 0 makes waits exact (virtual-time tests).
    public var jitter: Double = 0.2
    /// The statuses after which an item is sent again (besides 401, which always waits).
    public var retryableStatusCodes: Set<Int> = Set([408, 409, 425, 429]).union(500...599)
    /// The transport errors after which an item is sent again: the network is away or the
    /// answer was lost. Any other transport error (a bad URL, a certificate refused) fails
    /// the item.
    public var retryableTransportErrors: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet, .cannotFindHost,
        .dnsLookupFailed, .badServerResponse, .secureConnectionFailed, .internationalRoamingOff,
        .dataNotAllowed, .callIsActive, .resourceUnavailable,
    ]
    /// The largest body an item may carry, in bytes (10 MiB); `enqueue` refuses a larger one
    /// with `LeashError.encoding`. Bodies live in the store until delivered, so keep them small:
    /// upload big files with `client.upload`, and put a reference to them in the outbox.
    public var maximumBodySize: Int = 10 << 20
    /// How often an outbox looks at the store for items another process added, and tries to
    /// take over delivery from a process that no longer holds it, in seconds.
    public var storeWatchInterval: TimeInterval = 1

    /// The defaults.
    public init() {}
}
