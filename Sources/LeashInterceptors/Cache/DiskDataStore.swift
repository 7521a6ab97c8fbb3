import Foundation
import LeashDigest

/// A `DataStore` on disk: one file per key in `directory`, which is created when the
/// first body is saved.
///
/// - File names are the SHA-256 of the key (`<64 hex digits>.leashcache`): any key (a
///   URL with `/`, `..`, very long queries) gives a safe, fixed-length name.
/// - Each file holds the key, the body's length and a checksum with the body, and is
///   checked on reading: a missing, truncated, corrupt or foreign file (or another key's,
///   should two keys ever share a hash) is a miss, never a crash.
/// - Writes are atomic (a temporary file, then a rename): a reader, in this process or
///   another, sees the old body or the new one, never half of one; concurrent saves of
///   one key leave one of them whole.
/// - Write errors (a read-only or full disk) mean the body is not stored.
///
/// Thread-safe: it holds no mutable state; the file system orders the operations.
/// `removeAll()` deletes the `.leashcache` files of `directory` and nothing else.
///
/// ```swift
/// let caches = try FileManager.default.url(
///     for: .cachesDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
/// let store = DiskDataStore(directory: caches.appendingPathComponent("api-cache"))
/// ```
public final class DiskDataStore: DataStore {
    /// Where the files are.
    public let directory: URL

    /// The file name suffix of the store's files.
    public static let fileExtension = "leashcache"

    /// A store keeping its files in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The file that holds the body of `key`.
    public func fileURL(for key: CacheKey) -> URL {
        let name = SHA256.hexDigest(Array(key.stringValue.utf8))
        return directory.appendingPathComponent(name).appendingPathExtension(Self.fileExtension)
    }

    /// The body stored for `key`, or `nil` if there is none or its file is not whole.
    public func data(for key: CacheKey) -> Data? {
        guard let contents = try? Data(contentsOf: fileURL(for: key)) else { return nil }
        return CacheFileFormat.body(of: contents, expectedKey: key.stringValue)
    }

    /// Stores `data` for `key` atomically; if the disk refuses, nothing is stored.
    public func save(_ data: Data, for key: CacheKey) {
        let contents = CacheFileFormat.encode(body: data, key: key.stringValue)
        let url = fileURL(for: key)
        do {
            try contents.write(to: url, options: .atomic)
        } catch {
            // Most likely the directory does not exist yet: create it and try once more.
            // Anything else (a full or read-only disk) leaves the body unstored, which
            // is a miss later, as the protocol allows.
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try? contents.write(to: url, options: .atomic)
        }
    }

    /// Deletes the file of `key`, if any.
    public func removeData(for key: CacheKey) {
        try? FileManager.default.removeItem(at: fileURL(for: key))
    }

    /// Deletes every `.leashcache` file in `directory`.
    public func removeAll() {
        let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        for file in files where file.pathExtension == Self.fileExtension {
            try? FileManager.default.removeItem(at: file)
        }
    }
}

/// The layout of a cache file: magic, key length (4 bytes), key (UTF-8), body length
/// (8 bytes), body checksum (8 bytes, FNV-1a), body; integers big-endian.
enum CacheFileFormat {
    static let magic = Data("LEASHDS1".utf8)

    static func encode(body: Data, key: String) -> Data {
        let keyBytes = Data(key.utf8)
        var contents = magic
        contents.reserveCapacity(magic.count + 4 + keyBytes.count + 16 + body.count)
        append(UInt64(keyBytes.count), bytes: 4, to: &contents)
        contents.append(keyBytes)
        append(UInt64(body.count), bytes: 8, to: &contents)
        append(checksum(body), bytes: 8, to: &contents)
        contents.append(body)
        return contents
    }

    /// The body in `contents` if the file is whole and holds `expectedKey`; else `nil`.
    static func body(of contents: Data, expectedKey: String) -> Data? {
        var reader = ByteReader(contents)
        guard reader.take(magic.count) == magic,
            let keyLength = reader.integer(bytes: 4),
            let keyBytes = reader.take(Int(keyLength)),
            String(decoding: keyBytes, as: UTF8.self) == expectedKey,
            let bodyLength = reader.integer(bytes: 8),
            let sum = reader.integer(bytes: 8),
            bodyLength == UInt64(reader.remaining),
            let body = reader.take(reader.remaining),
            checksum(body) == sum
        else { return nil }
        return body
    }

    /// FNV-1a, 64 bits: detects truncation and flipped bytes, cheaply.
    static func checksum(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func append(_ value: UInt64, bytes: Int, to data: inout Data) {
        for index in stride(from: bytes - 1, through: 0, by: -1) {
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(index * 8)))
        }
    }

    /// Reads a file's fields in order, bounds-checked: past the end is `nil`, never a trap.
    private struct ByteReader {
        let data: Data
        var offset: Int

        init(_ data: Data) {
            self.data = data
            self.offset = data.startIndex
        }

        var remaining: Int { data.endIndex - offset }

        mutating func take(_ count: Int) -> Data? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return data.subdata(in: offset..<offset + count)
        }

        mutating func integer(bytes: Int) -> UInt64? {
            guard let field = take(bytes) else { return nil }
            return field.reduce(0) { $0 << 8 | UInt64($1) }
        }
    }
}
