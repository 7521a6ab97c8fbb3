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
/// It is an execution interceptor (answering first), a completion interceptor (answering
/// instead of a failure) and a serialization interceptor (storing). Where it sits among
/// other interceptors matters as for any: a `LoggerInterceptor` added before it logs the
/// failure it then answers from the cache.
open class CacheInterceptor: ExecutionInterceptor, CompletionInterceptor, SerializationInterceptor,
    @unchecked Sendable
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

    /// Answers from the store first when the policy says so, then proceeds (or finishes,
    /// for `.cachedElseNetwork`). Retries go to the network: the cached value, if any, was
    /// handed back on the first attempt.
    public func intercept(chain: InterceptorChain<Data>) {
        guard chain.attempt == 1, let lookup = lookUp(chain.endpoint, chain.request.urlRequest),
            lookup.policy.start != .network, let data = dataStore.data(for: lookup.key)
        else {
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

    // MARK: Completion: answer instead of a failure

    /// Answers a failure from the store when the policy says so; otherwise proceeds.
    public func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        guard case .failure(let error) = response, let lookup = lookUp(chain.endpoint, chain.request.urlRequest),
            lookup.policy.answersFromCache(after: error), let data = dataStore.data(for: lookup.key)
        else {
            chain.proceed()
            return
        }
        chain.complete(with: data, extra: Self.cachedExtra(data: data, lookup: lookup))
    }

    // MARK: Serialization: store

    /// Stores the body of a network response that serialized, then proceeds.
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
        dataStore.save(body, for: lookup.key)
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

    private static func cachedExtra(data: Data, lookup: Lookup) -> ResponseExtra {
        ResponseExtra(source: .cache, request: lookup.request, data: data, interceptorExtra: lookup.key)
    }

    /// The endpoint's path as patterns see it: without its query, with a leading `/`.
    static func matchablePath(_ path: String) -> String {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return withoutQuery.hasPrefix("/") ? String(withoutQuery) : "/" + withoutQuery
    }
}
