import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How long a `CacheInterceptor` may use a stored body without asking the server: the
/// option that gives a `CachingPolicy` HTTP caching semantics. Without it (the default)
/// a stored body is used however old it is, as before.
///
/// A body is *fresh* for a while after it was stored, then *stale*. What the policies do
/// with a stale body:
/// - `CacheElseNetwork` answers from the cache only while it is fresh; a stale one goes to
///   the network (instead of being served forever);
/// - `CacheAndRenew` answers a fresh body and skips the network (there is nothing to
///   renew); a stale one is handed back at once, then renewed from the network;
/// - `CacheOnlyOnError` always goes to the network, and still answers a failure with a
///   stale body: old data beats no data when the server cannot be reached.
///
/// When a body goes back to the server and was stored with an `ETag` or a
/// `Last-Modified`, the request asks whether it changed (`If-None-Match`,
/// `If-Modified-Since`); a `304 Not Modified` is answered with the stored body (see
/// `CacheInterceptor`). A request that carries a `Cache-Control: no-cache` of its own is
/// never answered from the cache without asking, and one with `no-store` is not stored.
///
/// ```swift
/// register(policy: CachePolicy.CacheElseNetwork(freshness: .http(defaultTimeToLive: 60)), to: "/users/[0-9]+")
/// register(policy: CachePolicy.CacheElseNetwork(freshness: .timeToLive(300)), to: "/countries")
/// ```
///
/// Time is the manager's `scheduler.now`, so a `TestScheduler` makes it virtual.
public struct CacheFreshness: Sendable, Equatable {
    /// Seconds a body stays fresh after it was stored: always, or, when `followsHTTPHeaders`,
    /// only when the response does not say (0: revalidated at every use).
    public let timeToLive: TimeInterval
    /// Whether the response's `Cache-Control` (`max-age`, `no-cache`, `no-store`),
    /// `Expires` and `Age` decide.
    public let followsHTTPHeaders: Bool

    private init(timeToLive: TimeInterval, followsHTTPHeaders: Bool) {
        // Negative or NaN: no freshness; infinite or huge: capped, so that it is stored as
        // a number like any other.
        let seconds = timeToLive.isNaN ? 0 : timeToLive
        self.timeToLive = min(max(seconds, 0), TimeInterval(CacheControl.maximumDeltaSeconds))
        self.followsHTTPHeaders = followsHTTPHeaders
    }

    /// Every body is fresh for `seconds` after it was stored, whatever the response's
    /// headers say (for an API whose caching headers are missing or wrong); its `ETag` or
    /// `Last-Modified` still serves to revalidate it once stale.
    public static func timeToLive(_ seconds: TimeInterval) -> CacheFreshness {
        CacheFreshness(timeToLive: seconds, followsHTTPHeaders: false)
    }

    /// The response decides (RFC 9111, as a private cache):
    /// - `Cache-Control: no-store`: not stored (and an entry stored before is removed);
    /// - `Cache-Control: no-cache`: stored, and revalidated before every use;
    /// - `Cache-Control: max-age=N`: fresh for N seconds, less its `Age`; without it,
    ///   `Expires` (less the response's `Date`, else the time it was stored; an invalid
    ///   `Expires` is in the past); without either, `defaultTimeToLive`.
    ///
    /// A `304` renews the entry from its own headers when it has `Cache-Control` or
    /// `Expires`, else with the entry's previous lifetime.
    public static func http(defaultTimeToLive: TimeInterval = 0) -> CacheFreshness {
        CacheFreshness(timeToLive: defaultTimeToLive, followsHTTPHeaders: true)
    }

    /// What to store with the body of `response` (`renewing` an entry, for a 304) at `now`;
    /// `nil` when it must not be stored.
    func metadata(
        for response: HTTPURLResponse, request: URLRequest?, at now: Date, renewing previous: CacheEntry.Metadata? = nil
    ) -> CacheEntry.Metadata? {
        if CacheControl(request?.value(forHTTPHeaderField: "Cache-Control")).noStore { return nil }
        var lifetime = timeToLive
        var revalidates = previous?.requiresRevalidation ?? false
        if followsHTTPHeaders {
            let control = CacheControl(response.value(forHTTPHeaderField: "Cache-Control"))
            if control.noStore { return nil }
            let saysFreshness =
                response.value(forHTTPHeaderField: "Cache-Control") != nil
                || response.value(forHTTPHeaderField: "Expires") != nil
            if let previous, !saysFreshness {
                lifetime = previous.lifetime
            } else {
                lifetime = Self.headerLifetime(response, control: control, now: now) ?? timeToLive
                revalidates = control.noCache
            }
        }
        return CacheEntry.Metadata(
            storedAt: now, lifetime: lifetime, requiresRevalidation: revalidates,
            entityTag: response.value(forHTTPHeaderField: "ETag") ?? previous?.entityTag,
            lastModified: response.value(forHTTPHeaderField: "Last-Modified") ?? previous?.lastModified)
    }

    /// The lifetime the headers give, less the response's `Age`; `nil` if they give none.
    private static func headerLifetime(_ response: HTTPURLResponse, control: CacheControl, now: Date)
        -> TimeInterval?
    {
        let lifetime: TimeInterval
        if let maxAge = control.maxAge {
            lifetime = TimeInterval(maxAge)
        } else if let expires = response.value(forHTTPHeaderField: "Expires") {
            let served = response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) ?? now
            lifetime = HTTPDate.parse(expires).map { $0.timeIntervalSince(served) } ?? 0
        } else {
            return nil
        }
        let age = CacheControl.deltaSeconds(response.value(forHTTPHeaderField: "Age")) ?? 0
        return max(lifetime - TimeInterval(age), 0)
    }
}
