import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Manager {
    /// Builds a `Manager` step by step; `build()` checks the result.
    ///
    /// ```swift
    /// let manager = try Manager.Builder()
    ///     .scheme("http")
    ///     .host("localhost")
    ///     .port(8080)
    ///     .path("api")
    ///     .build()
    /// ```
    public final class Builder {
        // The URL parts are kept as given and checked in `build()`: URLComponents' own
        // setters trap on some bad input (a negative port), and `build()` must throw instead.
        private var urlString: String?
        private var schemeValue: String?
        private var hostValue: String?
        private var portValue: Int?
        private var pathValue: String?
        var authenticatorValue: Authenticator?
        var interceptorList: [Interceptor] = []
        var encoder = JSONEncoder()
        var urlEncoding = URLEncodingOptions()
        var decoder = JSONDecoder()
        /// Names compare ignoring case, so that `Accept` then `accept` is one header.
        var headers = HTTPHeaders()
        var timeoutValue: TimeInterval?
        var idleTimeoutValue: TimeInterval?
        var statusCodes = Set(200..<300)
        var transportValue: Transport?
        var queue: DispatchQueue?
        var retryLimit = 3
        var schedulerValue: SchedulerType?
        var gates: [RequestGate] = []
        var redirectPolicyValue = RedirectPolicy.follow
        var perHostLimit: Int?
        var totalLimit = 64
        var limitsRequests = false
        var credentialHandling = CredentialHandling.none
        var sharesInFlight = false
        var transferDirectoryValue: URL?

        /// Starts with nothing set.
        public init() {}

        /// Sets the whole base URL (`"https://api.example.com/v1"`).
        @discardableResult
        public func url(_ value: String) -> Self {
            urlString = value
            return self
        }

        /// Sets the whole base URL.
        @discardableResult
        public func url(_ value: URL) -> Self {
            urlString = value.absoluteString
            return self
        }

        /// Sets the scheme (`"https"`); with `url(_:)`, replaces the URL's scheme.
        @discardableResult
        public func scheme(_ value: String) -> Self {
            schemeValue = value
            return self
        }

        /// Sets the host; with `url(_:)`, replaces the URL's host.
        @discardableResult
        public func host(_ value: String) -> Self {
            hostValue = value
            return self
        }

        /// Sets the port (1...65535); with `url(_:)`, replaces the URL's port.
        @discardableResult
        public func port(_ value: Int) -> Self {
            portValue = value
            return self
        }

        /// Sets the base path (`"api"` or `"/api/v1"`); with `url(_:)`, replaces the URL's path.
        @discardableResult
        public func path(_ value: String) -> Self {
            pathValue = value.hasPrefix("/") || value.isEmpty ? value : "/" + value
            return self
        }

        /// Sets the authenticator whose credential goes with every request.
        @discardableResult
        public func authenticator(_ value: Authenticator) -> Self {
            authenticatorValue = value
            return self
        }

        /// Adds an interceptor after those already added.
        @discardableResult
        public func add(interceptor: Interceptor) -> Self {
            interceptorList.append(interceptor)
            return self
        }

        /// Adds a request adapter, made of `adapt`, after the interceptors already added:
        /// it changes each attempt's request before it is sent (see `RequestAdapter`).
        @discardableResult
        public func adapt(
            _ adapt: @escaping @Sendable (_ request: URLRequest, _ context: ExecutionContext) throws -> URLRequest
        ) -> Self {
            add(interceptor: ClosureRequestAdapter(adapt))
        }

        /// Adds interceptors after those already added.
        @discardableResult
        public func interceptors(_ values: [Interceptor]) -> Self {
            interceptorList.append(contentsOf: values)
            return self
        }

        /// Configures the JSON encoder for `Encodable` parameters.
        @discardableResult
        public func jsonEncoder(_ configure: (JSONEncoder) -> Void) -> Self {
            configure(encoder)
            return self
        }

        /// Replaces the JSON encoder.
        @discardableResult
        public func jsonEncoder(_ value: JSONEncoder) -> Self {
            encoder = value
            return self
        }

        /// Sets how arrays are written in URL queries and `FormURLEncoded` bodies: `.brackets`
        /// (`ids[]=1&ids[]=2`, the default), `.noBrackets` (`ids=1&ids=2`) or
        /// `.indexInBrackets` (`ids[0]=1&ids[1]=2`).
        @discardableResult
        public func arrayEncoding(_ value: URLEncodingOptions.ArrayEncoding) -> Self {
            urlEncoding.arrays = value
            return self
        }

        /// Sets how booleans are written in URL queries and `FormURLEncoded` bodies:
        /// `.literal` (`true`/`false`, the default) or `.numeric` (`1`/`0`).
        @discardableResult
        public func boolEncoding(_ value: URLEncodingOptions.BoolEncoding) -> Self {
            urlEncoding.bools = value
            return self
        }

        /// Configures the JSON decoder for responses.
        @discardableResult
        public func jsonDecoder(_ configure: (JSONDecoder) -> Void) -> Self {
            configure(decoder)
            return self
        }

        /// Replaces the JSON decoder.
        @discardableResult
        public func jsonDecoder(_ value: JSONDecoder) -> Self {
            decoder = value
            return self
        }

        /// Encodes and decodes dates with `formatter`.
        @discardableResult
        public func jsonDateFormatter(_ formatter: DateFormatter) -> Self {
            encoder.dateEncodingStrategy = .formatted(formatter)
            decoder.dateDecodingStrategy = .formatted(formatter)
            return self
        }

        /// Adds a header sent with every request. It replaces a header of the same name
        /// added before, whatever the case of either name (HTTP header names are
        /// case-insensitive).
        @discardableResult
        public func header(_ name: String, _ value: String) -> Self {
            headers[name] = value
            return self
        }

        /// Adds headers sent with every request, replacing those of the same names added
        /// before (in any case).
        @discardableResult
        public func headers(_ values: [String: String]) -> Self {
            for (name, value) in values { headers[name] = value }
            return self
        }

        /// Limits how long an execution may take, in seconds (enforced exactly by Leash).
        ///
        /// A value that is not positive and finite (`0`, `.infinity`, `.nan`) means no limit.
        @discardableResult
        public func timeout(_ seconds: TimeInterval) -> Self {
            timeoutValue = seconds.isFinite && seconds > 0 ? min(seconds, Self.longestTimeout) : nil
            return self
        }

        /// Limits how long an execution may go without a byte sent or received, in seconds
        /// (enforced exactly by Leash; every chunk of a transfer counts as activity). For
        /// uploads and downloads, which may last as long as their bytes keep moving, the
        /// `timeout` plays this role when no idle timeout is set.
        ///
        /// A value that is not positive and finite means no limit.
        @discardableResult
        public func idleTimeout(_ seconds: TimeInterval) -> Self {
            idleTimeoutValue = seconds.isFinite && seconds > 0 ? min(seconds, Self.longestTimeout) : nil
            return self
        }

        /// A year: longer limits are clamped to it, so that converting them to the
        /// timer's integer milliseconds can never overflow.
        static let longestTimeout: TimeInterval = 365 * 24 * 3600

        /// Sets the status codes that count as success (default `200..<300`).
        @discardableResult
        public func acceptableStatusCodes<Codes: Sequence<Int>>(_ codes: Codes) -> Self {
            statusCodes = Set(codes)
            return self
        }

        /// Sets the transport (default: `URLSessionTransport.shared`).
        @discardableResult
        public func transport(_ value: Transport) -> Self {
            transportValue = value
            return self
        }

        /// Lets identical GET requests in flight at the same time share one request: the
        /// same URL and the same headers (names compared case-insensitively), no body.
        ///
        /// Every execution that joins a flight gets the same response (or failure) and runs
        /// its own interceptors, validation and decoding on it; it never waits for a place
        /// of `maximumRequests(perHost:total:)`, which only the flight's own request takes.
        /// Disposing an execution only lets it go: the request is cancelled when the last
        /// one does. Nothing is cached: a request made after the flight answered is sent
        /// again. Uploads, downloads, streams and other methods are never shared.
        ///
        /// Opt-in, because sharing assumes the server's answer does not depend on how many
        /// times it was asked. (`SharingTransport` from `LeashInterceptors`, given as the
        /// transport, does the same.)
        @discardableResult
        public func sharesRequestsInFlight() -> Self {
            sharesInFlight = true
            return self
        }

        /// Delivers callbacks and values on `queue` (default: the transport's queue, where
        /// different executions' results may arrive in parallel; a serial queue makes them
        /// take turns).
        @discardableResult
        public func callbackQueue(_ value: DispatchQueue) -> Self {
            queue = value
            return self
        }

        /// Sets how many times one execution may be retried by interceptors (default 3).
        @discardableResult
        public func maximumRetryCount(_ value: Int) -> Self {
            retryLimit = max(0, value)
            return self
        }

        /// Runs Leash's timers (timeouts) on `scheduler`; a `TestScheduler` makes them
        /// virtual (default: a background dispatch queue).
        @discardableResult
        public func scheduler(_ value: SchedulerType) -> Self {
            schedulerValue = value
            return self
        }

        /// Adds a gate that every attempt waits on before its request is built (after the
        /// gates already added); see `RequestGate`.
        @discardableResult
        public func gate(_ value: RequestGate) -> Self {
            gates.append(value)
            return self
        }

        /// Sets what executions do when redirected (default `.follow`: up to 20 hops;
        /// `.doNotFollow`, or `.custom` to decide or change each hop). An endpoint's
        /// `redirectPolicy` overrides it.
        @discardableResult
        public func redirects(_ policy: RedirectPolicy) -> Self {
            redirectPolicyValue = policy
            return self
        }

        /// Limits how many of the manager's requests are at the transport at once: at most
        /// `perHost` to one host (and port), and `total` in all. The others wait in the
        /// manager's queue, in the order they came, and go when a place frees up; an
        /// execution that ends while its request waits there (`cancelAll()`, a dispose, a
        /// timeout, a cancelled `Task`) never sends it. A place is given back when the
        /// transport's request has really ended (for `URLSessionTransport`, when URLSession
        /// reports its task over, a cancelled one included).
        ///
        /// By default `perHost` is the `URLSessionTransport` session's
        /// `httpMaximumConnectionsPerHost` (6 for other transports), so that no request
        /// queues inside URLSession, where a cancel cannot reliably stop it; `total` is 64.
        /// Another transport (a `StubTransport`) has no limits unless this is called.
        /// Streams (`client.rx.stream`, Server-Sent Events) are not counted: each has a
        /// connection of its own. Managers that share a transport share its connections but
        /// not these limits: give each its own transport, or limits that add up to the
        /// session's, if they call the same host.
        @discardableResult
        public func maximumRequests(perHost: Int? = nil, total: Int = 64) -> Self {
            perHostLimit = perHost.map { max(1, $0) }
            totalLimit = max(1, total)
            limitsRequests = true
            return self
        }

        /// Sets what requests do when a server demands credentials (default `.none`: a 401
        /// or 407 is a response like any other, on every platform); see
        /// `CredentialHandling`.
        @discardableResult
        public func credentials(_ value: CredentialHandling) -> Self {
            credentialHandling = value
            return self
        }

        /// Keeps the files of transfers in progress (a staged multipart body, a download's
        /// partial file) in `directory`, made when first needed (default: `leash-transfers`
        /// in the temporary directory, shared by every manager and process). Package-only:
        /// tests give each test a folder of its own, so that what they count there is only
        /// their own files, whatever other processes do in the shared one.
        @discardableResult
        package func transferDirectory(_ directory: URL) -> Self {
            transferDirectoryValue = directory
            return self
        }

        /// Builds the manager.
        ///
        /// - Throws: `LeashError.invalidURL` if no base URL was set, or it cannot be parsed,
        ///   lacks a scheme or host, has a scheme other than http or https, or a port outside
        ///   1...65535; `reason` says which.
        public func build() throws -> Manager {
            Manager(builder: self, baseURL: try baseURL())
        }

        private func baseURL() throws -> URL {
            var result = URLComponents()
            var description = describeParts()
            if let urlString {
                description = urlString
                guard !urlString.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw LeashError.invalidURL(url: urlString, reason: "it is empty")
                }
                guard let parsed = URLComponents(string: urlString) else {
                    throw LeashError.invalidURL(
                        url: urlString,
                        reason: "it cannot be parsed (characters such as spaces must be percent-encoded)")
                }
                // Without "://", "localhost:8080" parses with "localhost" as its scheme: say
                // what is really missing.
                if schemeValue == nil, parsed.host == nil || parsed.host?.isEmpty == true,
                    !urlString.contains("://")
                {
                    throw LeashError.invalidURL(url: urlString, reason: "it has no scheme (such as http://)")
                }
                result = parsed
            } else if schemeValue == nil && hostValue == nil {
                throw LeashError.invalidURL(
                    url: description, reason: "no base URL was set; call url(_:), or scheme(_:) and host(_:)")
            }
            // Parts set separately refine the whole URL.
            if let schemeValue { result.scheme = schemeValue }
            if let hostValue { result.host = hostValue }
            guard let scheme = result.scheme, !scheme.isEmpty else {
                throw LeashError.invalidURL(url: description, reason: "it has no scheme (such as http://)")
            }
            guard scheme.lowercased() == "http" || scheme.lowercased() == "https" else {
                throw LeashError.invalidURL(url: description, reason: "the scheme \"\(scheme)\" is not http or https")
            }
            guard let host = result.host, !host.isEmpty else {
                throw LeashError.invalidURL(url: description, reason: "it has no host")
            }
            if let port = portValue ?? result.port {
                guard (1...65_535).contains(port) else {
                    throw LeashError.invalidURL(url: description, reason: "the port \(port) is not in 1...65535")
                }
                result.port = port
            }
            if let pathValue { result.path = pathValue }
            guard let url = result.url else {
                throw LeashError.invalidURL(
                    url: description,
                    reason: "its parts do not form a URL (host \"\(host)\", path \"\(result.path)\")")
            }
            return url
        }

        /// The parts set separately, for messages.
        private func describeParts() -> String {
            var parts: [String] = []
            if let schemeValue { parts.append("scheme: \(schemeValue)") }
            if let hostValue { parts.append("host: \(hostValue)") }
            if let portValue { parts.append("port: \(portValue)") }
            if let pathValue { parts.append("path: \(pathValue)") }
            return "(" + (parts.isEmpty ? "nothing set" : parts.joined(separator: ", ")) + ")"
        }
    }
}
