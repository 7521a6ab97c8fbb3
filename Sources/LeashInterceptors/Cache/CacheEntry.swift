import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a `CacheInterceptor` keeps for a key: the body and, for policies with a
/// `CacheFreshness`, when and for how long it is fresh and how to revalidate it.
///
/// Stored in any `DataStore` as one `Data` (`storedData`), so that custom stores keep
/// working unchanged, the body and its metadata are written, read and evicted together
/// (never a body with another body's freshness), and `DiskDataStore` keeps them across
/// launches:
/// - without metadata, the body as it is: what Leash always stored, so entries stored
///   before freshness was turned on (or by a policy without it) are read as bodies with
///   no metadata;
/// - with metadata, an envelope: a magic prefix, the metadata's length (4 bytes,
///   big-endian), the metadata as JSON, then the body. A bare body that happens to begin
///   with the magic prefix is wrapped too, so reading is never ambiguous.
///
/// An envelope that cannot be read (truncated, from a later format) is a miss.
public struct CacheEntry: Sendable, Equatable {
    /// When and for how long a body is fresh, and its validators.
    public struct Metadata: Sendable, Equatable, Codable {
        /// When it was stored (or last revalidated), on the manager's scheduler's clock.
        public var storedAt: Date
        /// Seconds after `storedAt` during which it is fresh.
        public var lifetime: TimeInterval
        /// Whether it must be revalidated before every use (`Cache-Control: no-cache`).
        public var requiresRevalidation: Bool
        /// The response's `ETag`, sent back as `If-None-Match`.
        public var entityTag: String?
        /// The response's `Last-Modified`, sent back as `If-Modified-Since`.
        public var lastModified: String?

        /// Metadata with these values.
        public init(
            storedAt: Date, lifetime: TimeInterval, requiresRevalidation: Bool = false, entityTag: String? = nil,
            lastModified: String? = nil
        ) {
            self.storedAt = storedAt
            self.lifetime = lifetime
            self.requiresRevalidation = requiresRevalidation
            self.entityTag = entityTag
            self.lastModified = lastModified
        }

        /// Whether it may be used at `now` without asking the server.
        public func isFresh(at now: Date) -> Bool {
            !requiresRevalidation && now.timeIntervalSince(storedAt) < lifetime
        }

        /// Whether the entry has something to revalidate with.
        public var hasValidators: Bool { entityTag != nil || lastModified != nil }
    }

    /// The body.
    public var body: Data
    /// The body's freshness; `nil` for a body stored without (a policy with no
    /// `CacheFreshness`, or before one was set), which is never fresh for a policy that has one.
    public var metadata: Metadata?

    /// An entry.
    public init(body: Data, metadata: Metadata? = nil) {
        self.body = body
        self.metadata = metadata
    }

    /// The entry `storedData` holds; `nil` for an envelope that cannot be read.
    public init?(storedData: Data) {
        guard storedData.starts(with: Self.magic) else {
            self.init(body: storedData)
            return
        }
        let lengthStart = storedData.startIndex + Self.magic.count
        let metadataStart = lengthStart + 4
        guard storedData.endIndex >= metadataStart else { return nil }
        let length = storedData[lengthStart..<metadataStart].reduce(0) { $0 << 8 | Int($1) }
        guard storedData.endIndex - metadataStart >= length else { return nil }
        let metadataEnd = metadataStart + length
        var metadata: Metadata?
        if length > 0 {
            guard let decoded = try? JSONDecoder().decode(Metadata.self, from: storedData[metadataStart..<metadataEnd])
            else { return nil }
            metadata = decoded
        }
        self.init(body: Data(storedData[metadataEnd...]), metadata: metadata)
    }

    /// The entry as one `Data` for a `DataStore` (see the type's description).
    public var storedData: Data {
        guard metadata != nil || body.starts(with: Self.magic) else { return body }
        // Encoding these few plain fields cannot fail; if it ever did, the body would be
        // stored without freshness, which is read as stale: safe.
        let encoder = JSONEncoder()
        // The same entry, the same bytes (JSON objects have no order of their own).
        encoder.outputFormatting = .sortedKeys
        let json = metadata.flatMap { try? encoder.encode($0) } ?? Data()
        var data = Self.magic
        data.reserveCapacity(Self.magic.count + 4 + json.count + body.count)
        for shift in stride(from: 24, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: json.count >> shift))
        }
        data.append(json)
        data.append(body)
        return data
    }

    /// Begins every envelope: a NUL and a name, which no JSON, text or image body starts with.
    static let magic = Data("\u{0}LEASH-CACHE-ENTRY-1\n".utf8)
}
