import Foundation

/// Why a `CacheInterceptor` failed an execution.
public enum CacheError: Swift.Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered `304 Not Modified` to a revalidation, but the store no longer
    /// holds the body it confirms: it was evicted or replaced (by another execution of the
    /// same key) while the request was out. Executing again asks for the whole body.
    case notModifiedButNotStored(CacheKey)

    /// A sentence naming the key.
    public var description: String {
        switch self {
        case .notModifiedButNotStored(let key):
            return "The server answered 304 Not Modified for \(key), but the cache no longer holds that body."
        }
    }
}
