import Foundation
import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A failed item's `LeashError` as the store keeps it (JSON), so that it reads back after a
/// restart with its case, status, headers and body, and its message.
///
/// What cannot be stored (an encoder's error object, a request) comes back as its
/// description: `underlying` errors return as `StoredError.Underlying`.
struct StoredError: Codable {
    var kind: String
    var message: String
    var statusCode: Int?
    var headers: [String: String]?
    var body: Data?
    var urlErrorCode: Int?
    var seconds: Double?
    var attempts: Int?
    var url: String?
    var reason: String?
    var underlying: String?
    var lastError: [StoredError]?  // an array: a struct cannot hold itself directly

    /// A stored error's `underlying`, which keeps only its description.
    struct Underlying: Error, CustomStringConvertible {
        let description: String
    }

    init(_ error: LeashError) {
        kind = "other"
        message = error.description
        reason = nil
        underlying = error.underlyingError.map { String(describing: $0) }
        switch error {
        case .unacceptableStatusCode(let failure):
            kind = "status"
            statusCode = failure.statusCode
            headers = failure.headers.dictionary
            body = failure.body
        case .transport(let urlError):
            kind = "transport"
            urlErrorCode = urlError.errorCode
        case .timeout(let seconds):
            kind = "timeout"
            self.seconds = seconds
        case .cancelled:
            kind = "cancelled"
        case .encoding(let reason, _):
            kind = "encoding"
            self.reason = reason
        case .invalidURL(let url, let reason):
            kind = "invalidURL"
            self.url = url
            self.reason = reason
        case .retryLimitExceeded(let attempts, let last):
            kind = "retryLimit"
            self.attempts = attempts
            lastError = (last as? LeashError).map { [StoredError($0)] }
        case .authenticationFailed:
            kind = "authentication"
        case .invalidResponse(let reason):
            kind = "invalidResponse"
            self.reason = reason
        case .serialization(let reason, _):
            kind = "serialization"
            self.reason = reason
        default:
            break
        }
    }

    /// The error again, as close to the original as the stored fields allow; a case the
    /// outbox never fails an item with comes back as `.invalidResponse` with the message.
    var leashError: LeashError {
        let cause = underlying.map { Underlying(description: $0) }
        switch kind {
        case "status":
            return .unacceptableStatusCode(
                StatusCodeFailure(
                    statusCode: statusCode ?? 0, headers: HTTPHeaders(headers ?? [:]), body: body ?? Data(),
                    response: nil))
        case "transport":
            // Failable in FoundationNetworking, not on Apple platforms: made optional for both.
            let code = URLError.Code(rawValue: urlErrorCode ?? URLError.unknown.rawValue) as URLError.Code?
            return .transport(URLError(code ?? .unknown))
        case "timeout": return .timeout(seconds: seconds ?? 0)
        case "cancelled": return .cancelled
        case "encoding": return .encoding(reason: reason ?? message, underlying: cause)
        case "invalidURL": return .invalidURL(url: url ?? "", reason: reason ?? message)
        case "retryLimit":
            return .retryLimitExceeded(attempts: attempts ?? 0, lastError: lastError?.first?.leashError)
        case "authentication": return .authenticationFailed(underlying: cause)
        case "serialization": return .serialization(reason: reason ?? message, underlying: cause)
        case "invalidResponse": return .invalidResponse(reason: reason ?? message)
        default: return .invalidResponse(reason: message)
        }
    }

    /// The JSON the store keeps.
    func encoded() -> Data {
        (try? JSONEncoder().encode(self)) ?? Data(#"{"kind":"other","message":"unencodable error"}"#.utf8)
    }

    /// The error in `data`; one that no longer decodes (a damaged row) still reads as an error.
    static func decode(_ data: Data) -> LeashError {
        guard let stored = try? JSONDecoder().decode(StoredError.self, from: data) else {
            return .invalidResponse(reason: "the outbox could not read this item's stored error")
        }
        return stored.leashError
    }
}
