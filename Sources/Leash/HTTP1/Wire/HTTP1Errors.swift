import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How `HTTP1Transport` reports what went wrong on the wire: as `LeashError.transport`, with
/// the `URLError` code URLSession uses for the same trouble and Leash's own error (saying
/// exactly what the server sent) kept as the underlying error.
enum HTTP1Errors {
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
