import Foundation

/// Where a `CacheInterceptor` keeps response bodies.
///
/// Contract:
/// - thread-safe: executions call a store from many threads at once (`Sendable` checks
///   the obvious part; a class holding mutable state must guard it);
/// - never throws and never crashes: a body that cannot be read (missing, corrupt, from
///   another version) is a miss, `nil`; a body that cannot be written is simply not
///   stored;
/// - `data(for:)` returns exactly what the last `save` for the same key stored, or `nil`.
///
/// A store holds opaque `Data`: a `CacheInterceptor` saves a `CacheEntry`'s `storedData`,
/// which is the bare body for policies without a `CacheFreshness` and an envelope of body
/// and metadata for those with one, so a store needs nothing more for HTTP caching.
///
/// Leash ships `InMemoryDataStore` and `DiskDataStore`.
///
/// ```swift
/// final class KeychainDataStore: DataStore {
///     func data(for key: CacheKey) -> Data? { nil }
///     func save(_ data: Data, for key: CacheKey) {}
/// }
/// ```
public protocol DataStore: Sendable {
    /// The body stored for `key`, or `nil`.
    func data(for key: CacheKey) -> Data?
    /// Stores `data` for `key`, replacing what was there.
    func save(_ data: Data, for key: CacheKey)
    /// Forgets the body stored for `key`.
    func removeData(for key: CacheKey)
    /// Forgets every body (for example when the user logs out).
    func removeAll()
}

extension DataStore {
    /// Does nothing: a store that only reads and writes (Leash's original two-method
    /// protocol) still conforms.
    public func removeData(for key: CacheKey) {}

    /// Does nothing (see `removeData(for:)`).
    public func removeAll() {}
}
