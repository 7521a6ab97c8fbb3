import Foundation
import Rx

/// A `DataStore` in memory, bounded by a number of entries and a number of bytes; the
/// least recently used entries go first when either bound is passed.
///
/// Thread-safe: every access holds one lock, for a dictionary lookup (and, on saving past
/// a bound, a scan for the entries to evict).
public final class InMemoryDataStore: DataStore {
    /// The most entries kept.
    public let maximumEntryCount: Int
    /// The most bytes of bodies kept; a body larger than this is not stored.
    public let maximumTotalBytes: Int

    private struct Entry {
        let data: Data
        var lastUse: UInt64
    }

    private struct State {
        var entries: [CacheKey: Entry] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0

        mutating func tick() -> UInt64 {
            clock += 1
            return clock
        }
    }

    private let state = LockedState(State())

    /// A store keeping at most `maximumEntryCount` bodies and `maximumTotalBytes` bytes
    /// (negative bounds count as zero: nothing is kept).
    public init(maximumEntryCount: Int = 256, maximumTotalBytes: Int = 16 * 1024 * 1024) {
        self.maximumEntryCount = max(0, maximumEntryCount)
        self.maximumTotalBytes = max(0, maximumTotalBytes)
    }

    /// The body stored for `key` (which becomes the most recently used), or `nil`.
    public func data(for key: CacheKey) -> Data? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            entry.lastUse = state.tick()
            state.entries[key] = entry
            return entry.data
        }
    }

    /// Stores `data` for `key`, evicting the least recently used entries past the bounds.
    public func save(_ data: Data, for key: CacheKey) {
        let maximumEntryCount = self.maximumEntryCount
        let maximumTotalBytes = self.maximumTotalBytes
        // Evicted bodies are freed after the lock is released.
        let evicted = state.withLock { state -> [Data] in
            var evicted: [Data] = []
            if let old = state.entries.removeValue(forKey: key) {
                state.totalBytes -= old.data.count
                evicted.append(old.data)
            }
            guard data.count <= maximumTotalBytes, maximumEntryCount > 0 else { return evicted }
            state.entries[key] = Entry(data: data, lastUse: state.tick())
            state.totalBytes += data.count
            while state.entries.count > maximumEntryCount || state.totalBytes > maximumTotalBytes {
                guard let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
                state.entries.removeValue(forKey: oldest.key)
                state.totalBytes -= oldest.value.data.count
                evicted.append(oldest.value.data)
            }
            return evicted
        }
        withExtendedLifetime(evicted) {}
    }

    /// Forgets the body stored for `key`.
    public func removeData(for key: CacheKey) {
        let removed = state.withLock { state -> Data? in
            guard let old = state.entries.removeValue(forKey: key) else { return nil }
            state.totalBytes -= old.data.count
            return old.data
        }
        withExtendedLifetime(removed) {}
    }

    /// Forgets every body.
    public func removeAll() {
        let removed = state.withLock { state -> [CacheKey: Entry] in
            defer {
                state.entries = [:]
                state.totalBytes = 0
            }
            return state.entries
        }
        withExtendedLifetime(removed) {}
    }

    /// How many bodies are stored.
    public var count: Int { state.withLock { $0.entries.count } }

    /// How many bytes of bodies are stored.
    public var totalBytes: Int { state.withLock { $0.totalBytes } }
}
