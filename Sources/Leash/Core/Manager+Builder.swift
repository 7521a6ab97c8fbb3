import Dispatch
import Foundation
import Rx

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
        private var components = URLComponents()
        private var urlString: String?
        var authenticatorValue: Authenticator?
        var interceptorList: [Interceptor] = []
        var encoder = JSONEncoder()
        var decoder = JSONDecoder()
        var headers: [String: String] = [:]
        var timeoutValue: TimeInterval?
        var statusCodes = Set(200..<300)
        var transportValue: Transport?
        var queue: DispatchQueue?
        var retryLimit = 3
        var schedulerValue: SchedulerType?

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

        /// Sets the scheme (`"https"`).
        @discardableResult
        public func scheme(_ value: String) -> Self {
            components.scheme = value
            return self
        }

        /// Sets the host.
        @discardableResult
        public func host(_ value: String) -> Self {
            components.host = value
            return self
        }

        /// Sets the port.
        @discardableResult
        public func port(_ value: Int) -> Self {
            components.port = value
            return self
        }

        /// Sets the base path (`"api"` or `"/api/v1"`).
        @discardableResult
        public func path(_ value: String) -> Self {
            components.path = value.hasPrefix("/") || value.isEmpty ? value : "/" + value
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

        /// Adds a header sent with every request.
        @discardableResult
        public func header(_ name: String, _ value: String) -> Self {
            headers[name] = value
            return self
        }

        /// Adds headers sent with every request.
        @discardableResult
        public func headers(_ values: [String: String]) -> Self {
            headers.merge(values) { _, new in new }
            return self
        }

        /// Limits how long an execution may take, in seconds (enforced exactly by Leash).
        @discardableResult
        public func timeout(_ seconds: TimeInterval) -> Self {
            timeoutValue = seconds
            return self
        }

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

        /// Delivers callbacks and values on `queue` (default: the transport's queue).
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

        /// Builds the manager.
        ///
        /// - Throws: `LeashError.invalidURL` if the base URL cannot be formed or lacks a
        ///   scheme or host.
        public func build() throws -> Manager {
            Manager(builder: self, baseURL: try baseURL())
        }

        private func baseURL() throws -> URL {
            var result = components
            if let urlString {
                guard let parsed = URLComponents(string: urlString) else {
                    throw LeashError.invalidURL(url: urlString, reason: "it is not a valid URL")
                }
                result = parsed
                // Parts set separately refine the whole URL.
                if let scheme = components.scheme { result.scheme = scheme }
                if let host = components.host { result.host = host }
                if let port = components.port { result.port = port }
                if !components.path.isEmpty { result.path = components.path }
            }
            let description =
                urlString ?? result.string ?? "(scheme: \(result.scheme ?? "none"), host: \(result.host ?? "none"))"
            guard let scheme = result.scheme, !scheme.isEmpty else {
                throw LeashError.invalidURL(url: description, reason: "it has no scheme (such as https)")
            }
            guard scheme.lowercased() == "http" || scheme.lowercased() == "https" else {
                throw LeashError.invalidURL(url: description, reason: "the scheme \"\(scheme)\" is not http or https")
            }
            guard let host = result.host, !host.isEmpty else {
                throw LeashError.invalidURL(url: description, reason: "it has no host")
            }
            guard let url = result.url else {
                throw LeashError.invalidURL(url: description, reason: "its parts do not form a URL")
            }
            return url
        }
    }
}
