import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers executions from a `DataStore` according to policies registered per path, and
/// stores fresh bodies. Values from the cache are marked: `response.source == .cache`
/// (their `details.interceptorExtra` is the `CacheKey`).
///
/// ```swift
/// final class APICache: CacheInterceptor, @unchecked Sendable {
///     init() {
///         super.init(dataStore: InMemoryDataStore())
///         register(policy: CachePolicy.CacheAndRenew(), to: "/expenses/[0-9]+/")
///         register(policy: CachePolicy.CacheOnlyOnError(), to: "/expenses/")
///     }
/// }
/// ```
///
/// (Swift asks subclasses of an `@unchecked Sendable` class to restate it; a subclass
/// that adds mutable state must guard it.)
///
/// - Policies are matched against the endpoint's `path` as declared (a leading `/`
///   added if missing, its `?query` left out) with `PathPattern`s; the first registered
///   pattern that matches decides. Paths with no policy are not touched.
/// - Keys are `CacheKey`s: method, URL and query items in a stable order.
/// - Only `cacheableMethods` (by default `GET`) are cached, and only bodies of network
///   responses with a 2xx status that the execution's serializer accepted: a body the
///   app cannot decode is never stored, nor replayed later.
/// - Bodies are stored before the value is handed back, so an execution that completed
///   has updated the store.
///
/// HTTP caching is an option of each policy (`CacheFreshness`): stored bodies are fresh for
/// a time-to-live or for what the response's `Cache-Control`/`Expires` say, then stale;
/// a stale body (or one marked `no-cache`) with an `ETag` or `Last-Modified` goes back to
/// the server as a conditional request (`If-None-Match`, `If-Modified-Since`, both when
/// both were stored, added with `InterceptorChain.proceed(with:)`), and the cache answers
/// the `304 Not Modified`:
/// - at the success stage, before status validation, so the 304 never reaches the caller
///   (nor a later interceptor) as an error: it becomes the stored body, marked `.cache`
///   (the body is the cache's) with the 304 as its `httpResponse` (`statusCode == 304`
///   tells a revalidated value from one answered without asking), and the entry's
///   freshness is renewed from the 304's headers;
/// - a success interceptor added before the cache may already have turned the 304 into
///   `LeashError.unacceptableStatusCode`: the completion stage answers that failure the
///   same way;
/// - if the store no longer holds the body the 304 confirms (evicted, or replaced, while
///   the request was out), the execution fails with
///   `CacheError.notModifiedButNotStored`, never with an empty value.
///
/// A 304 is the cache's to answer only on paths whose policy has a `CacheFreshness`, and
/// only for a request with `If-None-Match` or `If-Modified-Since`; a request that carries
/// its own validators keeps them (the cache adds none), and its 304 is answered as above
/// when they name the stored entry (else it fails with that `CacheError` too). The metadata is kept with the body in the same
/// `DataStore` entry (see `CacheEntry`).
///
/// It is an execution interceptor (answering first, or revalidating), a success
/// interceptor (answering a 304), a completion interceptor (answering instead of a
/// failure) and a serialization interceptor (storing). Where it sits among other
/// interceptors matters as for any: a `LoggerInterceptor` added before it logs the
/// failure it then answers from the cache.
open class CacheInterceptor: ExecutionInterceptor, SuccessInterceptor, CompletionInterceptor,
    SerializationInterceptor, @unchecked Sendable
{
    // @unchecked: an open class (subclasses are the app's, which Swift cannot check); its
    // own mutable state, the registrations, is behind a lock, and the rest is immutable
    // and Sendable.

    /// Where the bodies are kept.
    public let dataStore: DataStore
    /// The methods whose responses are cached.
    public let cacheableMethods: Set<HTTPMethod>
    /// The statuses whose bodies are stored (200–299).
    public let cacheableStatusCodes: Set<Int> = Set(200..<300)

    private struct Registration: Sendable {
        let pattern: PathPattern
        let policy: CachingPolicy
    }

    private let registrations = LockedState<[Registration]>([])

    /// A cache over `dataStore`, caching responses to `cacheableMethods` (by default `GET`).
    public init(dataStore: DataStore, cacheableMethods: Set<HTTPMethod> = [.get]) {
        self.dataStore = dataStore
        self.cacheableMethods = cacheableMethods
    }

    /// Applies `policy` to endpoints whose path matches `pattern`. Patterns registered
    /// earlier win. Thread-safe; registering while requests run affects the executions
    /// that start afterwards.
    ///
    /// A malformed literal pattern never matches (its `syntaxError` says why); build a
    /// pattern from a runtime string with `try PathPattern(string)` to get the error
    /// thrown instead.
    public func register(policy: CachingPolicy, to pattern: PathPattern) {
        registrations.withLock { $0.append(Registration(pattern: pattern, policy: policy)) }
    }

    /// Forgets every registered policy.
    public func removeAllPolicies() {
        registrations.withLock { $0.removeAll() }
    }

    /// The policy for `endpoint`, or `nil` if no registered pattern matches its path.
    public func policy(for endpoint: Endpoint) -> CachingPolicy? {
        let path = Self.matchablePath(endpoint.path)
        let registrations = self.registrations.withLock { $0 }
        return registrations.first { $0.pattern.matches(path) }?.policy
    }

    /// The key `request`'s body is stored under. Override to extend it (with the user's
    /// id, say, for a store shared by several accounts).
    open func cacheKey(for request: URLRequest) -> CacheKey? {
        CacheKey(request: request)
    }

    // MARK: Execution: answer first

    /// What `dataStore` holds for `key` (its body, and its freshness if it was stored with
    /// one); `nil` for nothing, or for an entry that cannot be read.
    public func entry(for key: CacheKey) -> CacheEntry? {
        dataStore.data(for: key).flatMap(CacheEntry.init(storedData:))
    }

    /// Answers from the store first when the policy says so, then proceeds (or finishes,
    /// for `.cachedElseNetwork`). Retries go to the network: the cached value, if any, was
    /// handed back on the first attempt. With a `CacheFreshness`, only fresh bodies finish
    /// the execution, and stale ones with validators are revalidated.
    public func intercept(chain: InterceptorChain<Data>) {
        guard let lookup = lookUp(chain.endpoint, chain.request.urlRequest) else {
            chain.proceed()
            return
        }
        if lookup.policy.freshness != nil {
            interceptWithFreshness(chain, lookup)
            return
        }
        guard chain.attempt == 1, lookup.policy.start != .network, let data = entry(for: lookup.key)?.body else {
            chain.proceed()
            return
        }
        let extra = Self.cachedExtra(data: data, lookup: lookup)
        switch lookup.policy.start {
        case .cachedThenNetwork:
            chain.complete(with: data, extra: extra, finish: false)
            chain.proceed()
        case .cachedElseNetwork:
            chain.complete(with: data, extra: extra, finish: true)
        case .network:
            chain.proceed()
        }
    }

    /// The execution stage of a policy with a `CacheFreshness`: a fresh body answers (alone);
    /// a stale one answers first only for `.cachedThenNetwork`; the network is asked
    /// whether a stale body with validators changed.
    private func interceptWithFreshness(_ chain: InterceptorChain<Data>, _ lookup: Lookup) {
        guard let entry = entry(for: lookup.key) else {
            chain.proceed()
            return
        }
        let toNetwork = {
            if let conditional = Self.conditionalRequest(lookup.request, entry) {
                chain.proceed(with: conditional)
            } else {
                chain.proceed()
            }
        }
        let requestWantsRevalidation = CacheControl(lookup.request.value(forHTTPHeaderField: "Cache-Control")).noCache
        let isFresh = !requestWantsRevalidation && (entry.metadata?.isFresh(at: Self.now(chain)) ?? false)
        let extra = Self.cachedExtra(data: entry.body, lookup: lookup)
        switch lookup.policy.start {
        case .cachedElseNetwork where chain.attempt == 1 && isFresh:
            chain.complete(with: entry.body, extra: extra, finish: true)
        case .cachedThenNetwork where chain.attempt == 1:
            chain.complete(with: entry.body, extra: extra, finish: isFresh)
            if !isFresh { toNetwork() }
        default:
            toNetwork()
        }
    }

    /// `request` asking whether `entry` changed, if it has validators and the request has
    /// none of its own.
    private static func conditionalRequest(_ request: URLRequest, _ entry: CacheEntry) -> URLRequest? {
        guard let metadata = entry.metadata, metadata.hasValidators,
            request.value(forHTTPHeaderField: "If-None-Match") == nil,
            request.value(forHTTPHeaderField: "If-Modified-Since") == nil
        else { return nil }
        var conditional = request
        if let tag = metadata.entityTag { conditional.setValue(tag, forHTTPHeaderField: "If-None-Match") }
        if let date = metadata.lastModified { conditional.setValue(date, forHTTPHeaderField: "If-Modified-Since") }
        return conditional
    }

    // MARK: Success: answer a 304

    /// Answers a `304 Not Modified` to a revalidation with the stored body (see the type's
    /// description); proceeds for any other response.
    public func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        if !answerNotModified(chain, response, chain.request.urlRequest) { chain.proceed() }
    }

    /// Completes `chain` with the body a 304 confirms (renewing its freshness), or with
    /// `CacheError.notModifiedButNotStored`; `false` if the 304 is not the cache's to answer.
    private func answerNotModified(_ chain: InterceptorChain<Data>, _ response: HTTPURLResponse, _ request: URLRequest?)
        -> Bool
    {
        guard response.statusCode == 304, let lookup = lookUp(chain.endpoint, request),
            let freshness = lookup.policy.freshness
        else { return false }
        let ifNoneMatch = lookup.request.value(forHTTPHeaderField: "If-None-Match")
        let ifModifiedSince = lookup.request.value(forHTTPHeaderField: "If-Modified-Since")
        guard ifNoneMatch != nil || ifModifiedSince != nil else { return false }
        guard let entry = entry(for: lookup.key), let metadata = entry.metadata,
            Self.confirms(metadata, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince)
        else {
            chain.complete(with: CacheError.notModifiedButNotStored(lookup.key))
            return true
        }
        if let renewed = freshness.metadata(
            for: response, request: lookup.request, at: Self.now(chain), renewing: metadata)
        {
            dataStore.save(CacheEntry(body: entry.body, metadata: renewed).storedData, for: lookup.key)
        } else {
            dataStore.removeData(for: lookup.key)
        }
        let extra = ResponseExtra(
            source: .cache, request: lookup.request, httpResponse: response, data: entry.body,
            interceptorExtra: lookup.key)
        chain.complete(with: entry.body, extra: extra)
        return true
    }

    /// Whether the validators a request sent name the stored entry.
    private static func confirms(_ metadata: CacheEntry.Metadata, ifNoneMatch: String?, ifModifiedSince: String?)
        -> Bool
    {
        if let tag = metadata.entityTag, let ifNoneMatch {
            let tags = ifNoneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if tags.contains(tag) || tags.contains("*") { return true }
        }
        return metadata.lastModified != nil && metadata.lastModified == ifModifiedSince
    }

    // MARK: Completion: answer instead of a failure

    /// Answers a failure from the store when the policy says so; otherwise proceeds.
    /// A 304 that an earlier success interceptor failed is answered as at the success stage.
    public func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        if case .unacceptableStatusCode(let failure)? = response.error as? LeashError, let head = failure.response,
            answerNotModified(chain, head, failure.request ?? chain.request.urlRequest)
        {
            return
        }
        guard case .failure(let error) = response, let lookup = lookUp(chain.endpoint, chain.request.urlRequest),
            lookup.policy.answersFromCache(after: error), let data = entry(for: lookup.key)?.body
        else {
            chain.proceed()
            return
        }
        chain.complete(with: data, extra: Self.cachedExtra(data: data, lookup: lookup))
    }

    // MARK: Serialization: store

    /// Stores the body of a network response that serialized, then proceeds. With a
    /// `CacheFreshness`, with its metadata; a response that must not be stored
    /// (`no-store`) removes what was stored for its key.
    public func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
    ) {
        defer { chain.proceed() }
        guard case .success = result, case .success(let body, _) = response,
            let details = response.details, details.source == .network,
            let status = details.statusCode, cacheableStatusCodes.contains(status),
            let lookup = lookUp(chain.endpoint, details.request ?? chain.request.urlRequest)
        else { return }
        guard let freshness = lookup.policy.freshness else {
            dataStore.save(CacheEntry(body: body).storedData, for: lookup.key)
            return
        }
        guard let head = details.httpResponse,
            let metadata = freshness.metadata(for: head, request: lookup.request, at: Self.now(chain))
        else {
            dataStore.removeData(for: lookup.key)
            return
        }
        dataStore.save(CacheEntry(body: body, metadata: metadata).storedData, for: lookup.key)
    }

    // MARK: Helpers

    private struct Lookup {
        let policy: CachingPolicy
        let key: CacheKey
        let request: URLRequest
    }

    /// The policy and key of a cacheable request with a registered policy.
    private func lookUp(_ endpoint: Endpoint, _ request: URLRequest?) -> Lookup? {
        guard let request, cacheableMethods.contains(HTTPMethod(rawValue: request.httpMethod ?? "GET")),
            let policy = policy(for: endpoint), let key = cacheKey(for: request)
        else { return nil }
        return Lookup(policy: policy, key: key, request: request)
    }

    /// The time freshness is measured in: the manager's scheduler's (virtual under a
    /// `TestScheduler`).
    private static func now<T>(_ chain: InterceptorChain<T>) -> Date {
        chain.client.manager.scheduler.now
    }

    private static func cachedExtra(data: Data, lookup: Lookup) -> ResponseExtra {
        ResponseExtra(source: .cache, request: lookup.request, data: data, interceptorExtra: lookup.key)
    }

    /// The endpoint's path as patterns see it: without its query, with a leading `/`.
    static func matchablePath(_ path: String) -> String {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return withoutQuery.hasPrefix("/") ? String(withoutQuery) : "/" + withoutQuery
    }
}
