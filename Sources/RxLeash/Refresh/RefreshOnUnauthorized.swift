import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The operator interceptor a `TokenRefresher` installs on a manager: an outcome with an
/// unauthorized status waits for the shared refresh, then retries the execution (the
/// request is built anew, with the new credential), once per execution.
struct RefreshOnUnauthorized: OperatorInterceptor, RetryForecasting {
    /// The mark an execution gets when it retries for a refresh: a second 401 passes on.
    static let retriedMark = "leash.token-refresher.retried"

    let refresher: TokenRefresher

    func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext) -> Observable<Response<Data>> {
        let refresher = self.refresher
        guard !refresher.excludes(context.endpoint) else { return upstream }
        return upstream.flatMap { response -> Observable<Response<Data>> in
            guard refresher.isUnauthorized(response.statusCode), context.mark(Self.retriedMark) else {
                return .just(response)
            }
            let rejected = refresher.credential(sentWith: Self.sentRequest(of: response) ?? context.request.urlRequest)
            return refresher.refreshIfNeeded(rejected: rejected).andThen(context.retry(after: response.error))
        }
    }

    /// An unauthorized outcome of an execution not retried for a refresh yet (the same test
    /// as `intercept(_:context:)`'s, without marking), so that a logger reports a refresh.
    func retryForecast(for response: Response<Data>, chain: InterceptorChain<Data>) -> String? {
        guard !refresher.excludes(chain.endpoint), refresher.isUnauthorized(response.statusCode),
            !chain.isMarked(Self.retriedMark)
        else { return nil }
        return "refreshing the token and retrying"
    }

    /// The request that got `response`, as the pipeline recorded it.
    private static func sentRequest(of response: Response<Data>) -> URLRequest? {
        if case .unacceptableStatusCode(let failure)? = response.error as? LeashError { return failure.request }
        return response.details?.request
    }
}
