import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Logs every execution as Leash always has, through a `Logger`:
///
/// - before the request is sent, `👉👉👉 GET https://api.example.com/users` (debug);
/// - for each value, `✔✔✔ GET https://api.example.com/users` (debug), with
///   ` (cache)` or ` (interceptor)` appended when the value did not come from the network;
/// - for a failure, `✖✖✖ GET https://api.example.com/users` (debug) and then the error's
///   description (error level).
///
/// A retried request is logged again, with ` (attempt 2)` and so on appended.
///
/// ```swift
/// let manager = try Manager.Builder()
///     .url("https://api.example.com")
///     .add(interceptor: LoggerInterceptor(logger: AppLogger()))
///     .build()
/// ```
///
/// It is an execution and a completion interceptor and always proceeds: it never changes
/// an execution. Add it first to see every request before other interceptors act on it.
public final class LoggerInterceptor: ExecutionInterceptor, CompletionInterceptor, Sendable {
    /// Where the lines go.
    public let logger: Logger

    /// A logger interceptor writing to `logger` (by default, standard output).
    public init(logger: Logger = PrintLogger()) {
        self.logger = logger
    }

    /// Logs the request about to be sent, then proceeds.
    public func intercept(chain: InterceptorChain<Data>) {
        defer { chain.proceed() }
        logger.logDebug("👉👉👉 \(Self.describe(chain))\(Self.attemptSuffix(chain.attempt))")
    }

    /// Logs the outcome (and the error of a failure), then proceeds.
    public func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        defer { chain.proceed() }
        let request = Self.describe(chain, outcome: response)
        switch response {
        case .success:
            logger.logDebug("✔✔✔ \(request)\(Self.sourceSuffix(response.source))")
        case .failure(let error):
            logger.logDebug("✖✖✖ \(request)")
            logger.logError(error)
        }
    }

    /// `METHOD URL` of the chain's request; `METHOD path` of the endpoint when the request
    /// could not be built (the chain then holds a placeholder request, not the endpoint's).
    private static func describe<Value>(_ chain: InterceptorChain<Value>, outcome: Response<Data>? = nil) -> String {
        switch outcome?.error as? LeashError {
        case .invalidURL?, .encoding?:
            return "\(chain.endpoint.method.rawValue) \(chain.endpoint.path)"
        default:
            let request = chain.request.urlRequest
            let method = request?.httpMethod ?? chain.endpoint.method.rawValue
            let url = request?.url?.absoluteString ?? chain.endpoint.path
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
