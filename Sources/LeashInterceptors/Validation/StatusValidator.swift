import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fails responses whose status code is not acceptable, with the same
/// `LeashError.unacceptableStatusCode` the pipeline's own validation produces (status,
/// headers, body, response and request kept), or with an error of the app's own.
///
/// The manager already validates against its `acceptableStatusCodes` after the success
/// interceptors; a `StatusValidator` validates *in* the success stage, so it runs in the
/// order it was added: before a `BodyValidator`, say, or mapping statuses to the app's
/// errors as Leash's `ResponseValidator` example did:
///
/// ```swift
/// let validator = StatusValidator(acceptableStatusCodes: 200..<300) { failure in
///     failure.statusCode == 401 || failure.statusCode == 403 ? AppError.unauthorized : nil
/// }
/// ```
///
/// A failed validation completes the success stage (later success interceptors are
/// skipped); the completion interceptors see the failure, and it reaches the caller as is.
public final class StatusValidator: SuccessInterceptor, Sendable {
    /// The status codes that pass.
    public let acceptableStatusCodes: Set<Int>
    private let mapError: (@Sendable (StatusCodeFailure) -> Swift.Error?)?

    /// A validator accepting `acceptableStatusCodes` (by default 200–299).
    ///
    /// - Parameters:
    ///   - acceptableStatusCodes: The status codes that pass.
    ///   - mapError: The error to fail with for a failure; `nil` (or a `nil` result) for
    ///     `LeashError.unacceptableStatusCode`.
    public init<Codes: Sequence<Int>>(
        acceptableStatusCodes: Codes, mapError: (@Sendable (StatusCodeFailure) -> Swift.Error?)? = nil
    ) {
        self.acceptableStatusCodes = Set(acceptableStatusCodes)
        self.mapError = mapError
    }

    /// A validator accepting 200–299, failing others with `mapError`'s error, or
    /// `LeashError.unacceptableStatusCode` if it gives none.
    public convenience init(mapError: (@Sendable (StatusCodeFailure) -> Swift.Error?)? = nil) {
        self.init(acceptableStatusCodes: 200..<300, mapError: mapError)
    }

    /// Proceeds if the status is acceptable; otherwise completes with the error.
    public func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        guard !acceptableStatusCodes.contains(response.statusCode) else {
            chain.proceed()
            return
        }
        let failure = StatusCodeFailure(
            statusCode: response.statusCode,
            // The header dictionary exactly as the pipeline builds it for its own failures.
            headers: ResponseExtra(source: .network, httpResponse: response).headers,
            body: data, response: response, request: chain.request.urlRequest)
        chain.complete(with: mapError?(failure) ?? LeashError.unacceptableStatusCode(failure))
    }
}
