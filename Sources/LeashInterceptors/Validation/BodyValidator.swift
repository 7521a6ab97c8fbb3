import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads the API's error out of a response body and fails the execution with it.
///
/// When `shouldDecode` says so (by default, for every status outside 200–299), the body
/// is decoded as `APIError` with the endpoint's decoder (else the manager's); if it
/// decodes, the execution fails with the error made from it (the decoded value itself,
/// when `APIError` is an `Error`), unchanged, so the caller can match the app's own type.
/// A body that does not decode is left alone: the pipeline's status validation then
/// fails the execution with `LeashError.unacceptableStatusCode`, body included.
///
/// ```swift
/// struct APIError: Decodable, Error, Equatable {
///     let code: String
///     let message: String
/// }
///
/// let manager = try Manager.Builder()
///     .url("https://api.example.com")
///     .add(interceptor: BodyValidator<APIError>())
///     .build()
/// ```
///
/// Some APIs report errors with a 200: pass `shouldDecode: { _, _ in true }` and a type
/// whose decoding fails for the normal bodies.
public final class BodyValidator<APIError: Decodable>: SuccessInterceptor, Sendable {
    private let shouldDecode: @Sendable (HTTPURLResponse, Data) -> Bool
    private let makeError: @Sendable (APIError, HTTPURLResponse) -> Swift.Error

    /// A validator decoding `APIError` when `shouldDecode` is true and failing with
    /// `makeError`'s error.
    ///
    /// - Parameters:
    ///   - shouldDecode: Whether to look for an error in this response; by default, when
    ///     its status is outside 200–299.
    ///   - makeError: The error to fail with, from the decoded body and the response.
    public init(
        shouldDecode: @escaping @Sendable (HTTPURLResponse, Data) -> Bool = BodyValidatorDefaults.isNotSuccess,
        makeError: @escaping @Sendable (APIError, HTTPURLResponse) -> Swift.Error
    ) {
        self.shouldDecode = shouldDecode
        self.makeError = makeError
    }

    /// Decodes the body when `shouldDecode` says so; completes with the API's error if it
    /// decodes, and proceeds otherwise.
    public func intercept(chain: InterceptorChain<Data>, response: HTTPURLResponse, data: Data) {
        guard shouldDecode(response, data) else {
            chain.proceed()
            return
        }
        let decoder = chain.endpoint.jsonDecoder ?? chain.client.manager.jsonDecoder
        guard let apiError = try? decoder.decode(APIError.self, from: data) else {
            chain.proceed()
            return
        }
        chain.complete(with: makeError(apiError, response))
    }
}

extension BodyValidator where APIError: Swift.Error {
    /// A validator failing with the decoded `APIError` itself.
    ///
    /// - Parameter shouldDecode: Whether to look for an error in this response; by
    ///   default, when its status is outside 200–299.
    public convenience init(
        shouldDecode: @escaping @Sendable (HTTPURLResponse, Data) -> Bool = BodyValidatorDefaults.isNotSuccess
    ) {
        self.init(shouldDecode: shouldDecode) { apiError, _ in apiError }
    }
}

/// Defaults of `BodyValidator` (outside the generic type, so that they are written once).
public enum BodyValidatorDefaults {
    /// Whether the status is outside 200–299.
    @Sendable public static func isNotSuccess(_ response: HTTPURLResponse, _ data: Data) -> Bool {
        !(200..<300).contains(response.statusCode)
    }
}
