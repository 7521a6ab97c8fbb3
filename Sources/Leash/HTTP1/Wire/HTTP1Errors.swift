import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How `HTTP1Transport` reports what went wrong on the wire: as `LeashError.transport`, with
/// the `URLError` code URLSession uses for the same trouble and Leash's own error (saying
/// exactly what the server sent) kept as the underlying error.
enum HTTP1Errors {
    /// Any error of an exchange's reading (the parser's, the decoder's, the sink's) as the
    /// `LeashError` it ends with.
    static func leashError(for error: Swift.Error) -> LeashError {
        switch error {
        case let error as HTTP1ResponseError: leashError(for: error)
        case let error as HTTP1ContentDecodingError: leashError(for: error)
        case let error as LeashError: error
        default: .transport(URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error]))
        }
    }

    /// A response the parser refused or that ended too soon.
    static func leashError(for error: HTTP1ResponseError) -> LeashError {
        let code: URLError.Code
        switch error {
        case .closedBeforeHead, .closedInsideHead, .closedInsideBody:
            // The connection ended early: a lost connection, which retry rules know.
            code = .networkConnectionLost
        default:
            code = .badServerResponse
        }
        return wrap(code, error, description: error.description)
    }

    /// A body whose content coding cannot be undone.
    static func leashError(for error: HTTP1ContentDecodingError) -> LeashError {
        wrap(.cannotDecodeContentData, error, description: error.description)
    }

    private static func wrap(_ code: URLError.Code, _ error: Swift.Error, description: String) -> LeashError {
        .transport(URLError(code, userInfo: [NSLocalizedDescriptionKey: description, NSUnderlyingErrorKey: error]))
    }
}
