import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Logs every attempt of every execution through a `Logger`:
///
/// - before the request is sent, `👉👉👉 GET https://api.example.com/users` (debug), with
///   ` (attempt 2)` and so on appended when the execution is retried;
/// - for each value, `✔✔✔ GET https://api.example.com/users → 200 in 12 ms` (debug):
///   the status and the time since the `👉👉👉` line of the same attempt (`12 ms`, `2.35 s`), with ` (cache)`
///   or ` (interceptor)` appended when the value did not come from the network;
/// - for an outcome that an interceptor after the completion stage will retry (a 401
///   that the token refresher turns into a refresh and a retry, a 503 that a
///   `RetryInterceptor` retries), `↻↻↻ GET … → 401 in 12 ms: refreshing the token and
///   retrying` (info), not an error: those interceptors say so as `RetryForecasting`;
/// - for a failure, `✖✖✖ GET https://api.example.com/users → 404 in 12 ms: Unacceptable
///   status code 404 (…)` (error level): one line with the request and the error's
///   description, so that a logger keeping only errors still says which request failed;
/// - for a failure that ends the execution after the completion stage, where the lines
///   above cannot see it (the `LeashError.authenticationFailed` of a token refresh that
///   failed, a serialization error, the timeout), `✗✗✗ GET … in 2.35 s: token refresh
///   failed: …` (error level; `LeashError.cancelled`, from `Manager.cancelAll()`, at info
///   level). A failure already logged as `✖✖✖` is not logged again.
///
/// With `verbosity: .headers`, each line is followed by the request's or the response's
/// headers, one per line and indented, the values of `redaction`'s headers shown as
/// `***`; with `.bodies`, also the first `bodyLimit` bytes of each body (as text, or
/// `<N bytes of binary>`):
///
/// ```swift
/// let logger = LoggerInterceptor(
///     logger: PrintLogger(), verbosity: .bodies, redacting: HeaderRedaction(also: ["X-Api-Key"]), bodyLimit: 512)
/// ```
///
/// It is an execution and a completion interceptor, which always proceeds (it never
/// changes an execution), and an `ExecutionEndObserver`. Add it first to see every request
/// before other interceptors act on it.
public final class LoggerInterceptor: ExecutionInterceptor, CompletionInterceptor, ExecutionEndObserver, Sendable {
    /// Where the lines go.
    public let logger: Logger
    /// How much is written about each attempt.
    public let verbosity: Verbosity
    /// Which header values are hidden.
    public let redaction: HeaderRedaction
    /// How many bytes of a body are shown at the `.bodies` verbosity.
    public let bodyLimit: Int

    private let clock = AttemptClock()

    /// A logger interceptor.
    ///
    /// - Parameters:
    ///   - logger: Where the lines go (default: standard output).
    ///   - verbosity: How much is written about each attempt (default `.basic`).
    ///   - redaction: Which header values are shown as `***` (default: `Authorization`,
    ///     `Proxy-Authorization`, `Cookie` and `Set-Cookie`).
    ///   - bodyLimit: How many bytes of a body are shown at `.bodies` (default 1024).
    public init(
        logger: Logger = PrintLogger(), verbosity: Verbosity = .basic, redacting redaction: HeaderRedaction = .standard,
        bodyLimit: Int = 1024
    ) {
        self.logger = logger
        self.verbosity = verbosity
        self.redaction = redaction
        self.bodyLimit = max(0, bodyLimit)
    }

    /// Logs the request about to be sent, then proceeds.
    public func intercept(chain: InterceptorChain<Data>) {
        defer { chain.proceed() }
        clock.start(chain.attemptRequest, at: chain.client.manager.scheduler.now)
        var message = "👉👉👉 \(Self.describe(chain))\(Self.attemptSuffix(chain.attempt))"
        if verbosity >= .headers, let request = chain.request.urlRequest {
            message += details(
                headers: HTTPHeaders(request.allHTTPHeaderFields ?? [:]), body: requestBody(of: request))
        }
        logger.logDebug(message)
    }

    /// Logs the outcome (a value, a retry to come, or a failure with its error), then
    /// proceeds.
    public func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        defer { chain.proceed() }
        let summary = self.summary(of: response, chain: chain)
        let details = verbosity >= .headers ? self.details(of: response) : ""
        if let forecast = Self.retryForecast(for: response, chain: chain) {
            logger.logInfo("↻↻↻ \(summary): \(forecast)\(details)")
            return
        }
        switch response {
        case .success:
            logger.logDebug("✔✔✔ \(summary)\(details)")
        case .failure(let error):
            clock.loggedFailure(chain.attemptRequest)
            logger.logError("✖✖✖ \(summary): \(Self.reason(error))\(details)")
        }
    }

    /// Logs a failure that ended the execution without passing the completion stage's
    /// lines above (raised after that stage, or ending the execution from outside it).
    public func executionDidEnd(_ end: ExecutionEnd) {
        let now = end.client.manager.scheduler.now
        let attempt = end.lastAttempt.map { clock.finish($0.attemptRequest, now: now) }
        guard let error = end.error, attempt?.loggedFailure != true else { return }
        var line = "✗✗✗ \(Self.describe(end.endpoint, request: end.lastAttempt?.request, error: error))"
        if let elapsed = attempt?.elapsed { line += " in \(Self.duration(elapsed))" }
        line += ": \(Self.reason(error))"
        if case .cancelled? = error as? LeashError {
            logger.logInfo(line)
        } else {
            logger.logError(line)
        }
    }

    /// What ended an execution, in a few words when Leash knows better than the error's
    /// sentence (which speaks to the app, not to the log's reader).
    private static func reason(_ error: Swift.Error) -> String {
        guard case .authenticationFailed(let underlying)? = error as? LeashError else { return "\(error)" }
        return "token refresh failed" + (underlying.map { ": \($0)" } ?? "")
    }

    // MARK: Lines

    /// `METHOD URL → status (source) in N ms`, each part there when known.
    private func summary(of response: Response<Data>, chain: InterceptorChain<Data>) -> String {
        var line = Self.describe(chain, outcome: response)
        if let status = response.statusCode { line += " → \(status)" }
        if response.isSuccess { line += Self.sourceSuffix(response.source) }
        if let elapsed = clock.elapsed(chain.attemptRequest, now: chain.client.manager.scheduler.now) {
            line += " in \(Self.duration(elapsed))"
        }
        return line
    }

    /// `12 ms` below a second, `2.35 s` from there.
    private static func duration(_ seconds: TimeInterval) -> String {
        let milliseconds = Int((max(0, seconds) * 1000).rounded())
        guard milliseconds >= 1000 else { return "\(milliseconds) ms" }
        return String(format: "%.2f s", Double(milliseconds) / 1000)
    }

    /// Why an interceptor of the manager will retry this attempt, if one will (and the
    /// manager allows another attempt).
    private static func retryForecast(for response: Response<Data>, chain: InterceptorChain<Data>) -> String? {
        guard chain.canRetry else { return nil }
        for case let forecasting as RetryForecasting in chain.client.manager.interceptors {
            if let forecast = forecasting.retryForecast(for: response, chain: chain) { return forecast }
        }
        return nil
    }

    /// The headers and (at `.bodies`) the body of an outcome: a network response's, or
    /// those a status failure carries.
    private func details(of response: Response<Data>) -> String {
        if case .unacceptableStatusCode(let failure)? = response.error as? LeashError {
            return details(headers: failure.headers, body: failure.body.isEmpty ? nil : failure.body.excerpt(bodyLimit))
        }
        guard let extra = response.details else { return "" }
        var body: String?
        if let file = extra.bodyFile {
            body = "<body written to \(file.path)>"
        } else if let data = extra.data, !data.isEmpty {
            body = data.excerpt(bodyLimit)
        }
        return details(headers: extra.headers, body: body)
    }

    /// What the log shows of a request's body: an excerpt of one in memory, or where it
    /// comes from (never read here).
    private func requestBody(of request: URLRequest) -> String? {
        if let body = request.httpBody, !body.isEmpty { return body.excerpt(bodyLimit) }
        if request.httpBodyStream != nil { return "<body sent from a stream>" }
        if let length = request.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init), length > 0 {
            return "<\(length) bytes sent from a file>"
        }
        return nil
    }

    /// The indented lines after a summary: the headers sorted by name (secrets hidden),
    /// then the body at `.bodies`.
    private func details(headers: HTTPHeaders, body: String?) -> String {
        var lines = headers.sorted { $0.name.lowercased() < $1.name.lowercased() }.map { name, value in
            "\(name): \(redaction.value(value, ofHeader: name))"
        }
        if verbosity >= .bodies, let body { lines.append(body) }
        return lines.map { "\n    " + $0.replacingOccurrences(of: "\n", with: "\n    ") }.joined()
    }

    /// `METHOD URL` of the chain's request; `METHOD path` of the endpoint when the request
    /// could not be built (the chain then holds a placeholder request, not the endpoint's).
    private static func describe<Value>(_ chain: InterceptorChain<Value>, outcome: Response<Data>? = nil) -> String {
        describe(chain.endpoint, request: chain.request, error: outcome?.error)
    }

    /// `METHOD URL` of `request`; `METHOD path` of `endpoint` without one, or when it could
    /// not be built (see above).
    private static func describe(_ endpoint: Endpoint, request: DataRequest?, error: Swift.Error?) -> String {
        switch error as? LeashError {
        case .invalidURL?, .encoding?:
            return "\(endpoint.method.rawValue) \(endpoint.path)"
        default:
            let urlRequest = request?.urlRequest
            let method = urlRequest?.httpMethod ?? endpoint.method.rawValue
            let url = urlRequest?.url?.absoluteString ?? endpoint.path
            return "\(method) \(url)"
        }
    }

    private static func attemptSuffix(_ attempt: Int) -> String {
        attempt > 1 ? " (attempt \(attempt))" : ""
    }

    private static func sourceSuffix(_ source: ResponseSource?) -> String {
        switch source {
        case .cache: return " (cache)"
        case .interceptor: return " (interceptor)"
        case .network, nil: return ""
        }
    }
}

extension Data {
    /// The body as a log shows it (see `BodyExcerpt`).
    fileprivate func excerpt(_ limit: Int) -> String {
        BodyExcerpt.describe(self, limit: limit)
    }
}
