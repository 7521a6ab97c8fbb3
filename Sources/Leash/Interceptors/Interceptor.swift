import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that guides requests through their life. Adopt one or more of the five
/// kinds (a logger is typically both an execution and a completion interceptor):
///
/// - `ExecutionInterceptor`: before the request is sent;
/// - `FailureInterceptor`: when the transport fails;
/// - `SuccessInterceptor`: when a response arrives;
/// - `CompletionInterceptor`: before the outcome is handed back;
/// - `SerializationInterceptor`: after the body was serialized.
///
/// Interceptors of a kind run one after another, in the order they were added: the next
/// one starts only when the previous one called its chain back. Each must call one of
/// its chain's `proceed()`, `complete(…)` or `retry()`, from any thread and at any time;
/// an interceptor that never calls back holds its execution until the timeout (set one:
/// without a timeout, nothing cuts it off).
///
/// What the stages hand on:
/// - `complete(…, finish: true)` skips the later interceptors of that kind; at the
///   execution stage it skips the network too. The completion and serialization
///   interceptors still see the outcome.
/// - `complete(…, finish: false)` hands a value back at once and the execution carries
///   on: a cache answering first, then the network (two values, then completion).
/// - `retry()` runs the execution again from the start, at most the manager's
///   `maximumRetryCount` times.
/// - Errors an interceptor completes with reach the caller unchanged, so the app's own
///   error types stay matchable.
public protocol Interceptor {}

/// Called before the request is sent: log it, answer it from a cache, hold it back.
///
/// Named for the stage it runs at, the execution's start, before anything is sent: the
/// name Leash's README gives it, kept so that its interceptors compile unchanged.
public protocol ExecutionInterceptor: Interceptor {
    /// Intercepts the request about to be sent.
    func intercept(chain: InterceptorChain<Data>)
}

/// Called when the transport fails (no connection, timeout, cancelled…).
public protocol FailureInterceptor: Interceptor {
    /// Intercepts the failure.
    func intercept(chain: InterceptorChain<Data>, error: Swift.Error)
}

/// Called when a response arrives, whatever its status: validate it, read API errors
/// out of its body.
public protocol SuccessInterceptor: Interceptor {
    /// Intercepts the response.
    func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data)
}

/// Called just before the outcome is serialized and handed back: log it, refresh a
/// credential and `retry()`.
public protocol CompletionInterceptor: Interceptor {
    /// Intercepts the outcome.
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>)
}

/// Called after the body was serialized: store the value in a cache, check it.
public protocol SerializationInterceptor: Interceptor {
    /// Intercepts the serialized result.
    func intercept<Serializer: ResponseSerializer>(
        chain: InterceptorChain<Serializer.SerializedObject>,
        response: Response<Data>,
        result: Result<Serializer.SerializedObject, Swift.Error>,
        serializer: Serializer
    )
}

/// An interceptor written directly as a stream operator over one execution's outcomes,
/// after the completion interceptors and before serialization.
///
/// `upstream` emits each outcome (`Response<Data>`: values, or failures as elements) and
/// completes; return the stream to continue with. `context.retry()` runs the request
/// again from the start (counting towards the manager's retry limit).
///
/// ```swift
/// struct RetryOnceOn503: OperatorInterceptor {
///     func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext)
///         -> Observable<Response<Data>> {
///         upstream.flatMap { response -> Observable<Response<Data>> in
///             response.statusCode == 503 && context.attempt == 1 ? context.retry() : .just(response)
///         }
///     }
/// }
/// ```
public protocol OperatorInterceptor: Interceptor {
    /// Transforms the outcomes of one execution.
    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>>
}
