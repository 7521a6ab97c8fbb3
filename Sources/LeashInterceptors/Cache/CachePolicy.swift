import Foundation
import Leash

/// How an execution begins when the cache may hold a body for it.
public enum CacheStart: Sendable, Equatable {
    /// Send the request; the cache is only a fallback (see
    /// `CachingPolicy.answersFromCache(after:)`).
    case network
    /// Answer with the stored body at once, if there is one, then send the request and
    /// answer again with the network's value.
    case cachedThenNetwork
    /// Answer with the stored body and finish, if there is one; else send the request.
    case cachedElseNetwork
}

/// Decides how a `CacheInterceptor` uses its store for the paths it is registered to.
///
/// Leash ships `CachePolicy.CacheAndRenew`, `CachePolicy.CacheOnlyOnError` and
/// `CachePolicy.CacheElseNetwork`; adopt this protocol for other rules.
public protocol CachingPolicy: Sendable {
    /// How an execution begins (only its first attempt: retries do not answer from the
    /// cache again).
    var start: CacheStart { get }

    /// Whether an execution that failed with `error` is answered from the cache instead
    /// (when it holds a body), marked `.cache`.
    func answersFromCache(after error: Swift.Error) -> Bool

    /// How long stored bodies stay fresh, and whether HTTP's caching headers count;
    /// `nil` (the default) uses a stored body however old it is. See `CacheFreshness`.
    var freshness: CacheFreshness? { get }
}

extension CachingPolicy {
    /// `nil`: a stored body is used however old it is (what policies written before
    /// `CacheFreshness` existed keep doing).
    public var freshness: CacheFreshness? { nil }
}

/// The cache policies Leash ships, spelled as Leash's were: `CachePolicy.CacheAndRenew()`.
public enum CachePolicy {
    /// Answers from the cache at once, then from the network, and stores the fresh body:
    /// a screen shows the last known data immediately and the current data when it
    /// arrives. The caller gets two values (the first marked `.cache`), then completion;
    /// without a stored body, only the network's value.
    ///
    /// If the network then fails, the execution fails after the cached value (the caller
    /// learns that the data could not be renewed).
    ///
    /// With a `freshness`, a fresh body is handed back alone (nothing to renew), and a
    /// stale one first, then renewed (a `304` hands the stored body back again, marked
    /// `.cache`, with the 304 in its details).
    public struct CacheAndRenew: CachingPolicy {
        /// How long stored bodies stay fresh; `nil`: always renewed.
        public let freshness: CacheFreshness?

        /// The policy; with a `freshness`, fresh bodies are not renewed.
        public init(freshness: CacheFreshness? = nil) {
            self.freshness = freshness
        }

        /// `.cachedThenNetwork`.
        public var start: CacheStart { .cachedThenNetwork }

        /// `false`: the cached value, if any, was already handed back.
        public func answersFromCache(after error: Swift.Error) -> Bool { false }
    }

    /// Goes to the network, and answers from the cache (marked `.cache`) only when the
    /// server could not be reached or could not answer: a transport failure (no
    /// connection, connection lost mid-response, DNS, TLS…), a response that could not be
    /// read, and, unless `includesServerErrors` is `false`, a 5xx status.
    ///
    /// A 4xx status is not answered from the cache: the server did answer, and said the
    /// request is wrong or not allowed; hiding that behind old data would be a bug. Nor
    /// are cancellation and Leash's own execution timeout, which end the execution
    /// whatever interceptors do.
    ///
    /// With a `freshness`, the request asks whether a stored body with validators changed
    /// (a `304` is answered with it), and a failure is answered even with a stale body.
    public struct CacheOnlyOnError: CachingPolicy {
        /// Whether 5xx statuses are answered from the cache.
        public let includesServerErrors: Bool
        /// How stored bodies are revalidated; `nil`: never.
        public let freshness: CacheFreshness?

        /// The policy; `includingServerErrors: false` answers transport failures only.
        public init(includingServerErrors: Bool = true, freshness: CacheFreshness? = nil) {
            self.includesServerErrors = includingServerErrors
            self.freshness = freshness
        }

        /// `.network`.
        public var start: CacheStart { .network }

        /// Whether `error` says the server could not be reached or could not answer.
        public func answersFromCache(after error: Swift.Error) -> Bool {
            switch error as? LeashError {
            case .transport?, .invalidResponse?:
                return true
            case .unacceptableStatusCode(let failure)?:
                return includesServerErrors && failure.kind == .server
            default:
                return false
            }
        }
    }

    /// Answers from the cache and skips the network when a body is stored; otherwise
    /// goes to the network (and stores its body): for data that never changes.
    ///
    /// With a `freshness`, only a fresh body is answered from the cache; a stale one goes
    /// to the network (asking whether it changed, if it has validators).
    public struct CacheElseNetwork: CachingPolicy {
        /// How long stored bodies stay fresh; `nil`: forever.
        public let freshness: CacheFreshness?

        /// The policy; with a `freshness`, stale bodies go to the network.
        public init(freshness: CacheFreshness? = nil) {
            self.freshness = freshness
        }

        /// `.cachedElseNetwork`.
        public var start: CacheStart { .cachedElseNetwork }

        /// `false`.
        public func answersFromCache(after error: Swift.Error) -> Bool { false }
    }
}
