import Foundation

/// An interceptor that retries some outcomes from a stage after the completion
/// interceptors (an `OperatorInterceptor`) and can say beforehand which ones.
///
/// A completion interceptor sees an outcome before the operator interceptors decide
/// what becomes of it: a logger sees the 401 that the token refresher is about to turn
/// into a refresh and a retry. It asks each `RetryForecasting` interceptor of the
/// manager (`chain.client.manager.interceptors`) whether the attempt will be retried,
/// and logs a retry instead of an error.
///
/// A forecast is what the interceptor means to do, not a promise: the retry may still be
/// refused (the manager's `maximumRetryCount`), or what it waits for may fail (a refresh
/// that fails ends the execution with its own error).
public protocol RetryForecasting: Interceptor {
    /// Why this interceptor will retry the attempt that produced `response`, in a few
    /// words for a log line ("refreshing the token and retrying"); `nil` if it will not.
    ///
    /// Called from any thread, with the chain of the completion interceptor asking; it
    /// must not decide the chain.
    func retryForecast(for response: Response<Data>, chain: InterceptorChain<Data>) -> String?
}
