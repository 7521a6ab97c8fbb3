import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Writes a successful response's body into a transfer's destination file (see
/// `TransportRequest.Destination.file`), appending to what an earlier attempt left when
/// the server resumes it, starting over otherwise.
///
/// Used on one thread at a time (the queue a transport writes one download on); every
/// failure is a `LeashError.fileAccess` naming the file. (`package`: `StubTransport`, in
/// `LeashTesting`, writes scripted downloads with it.)
package final class BodyFileWriter: @unchecked Sendable {
    // @unchecked: handed to the one queue that writes with it, then used only there.
    let url: URL
    private let handle: FileHandle
    /// The bytes the file keeps from before this response (0 when starting over).
    package let startOffset: Int64
    /// The bytes written by this response so far.
    private(set) var writtenBytes: Int64 = 0

    /// The bytes already in the file at `url` (0 if it cannot be read).
    package static func existingSize(of url: URL) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// The `Range` header asking for the rest of a body whose first `offset` bytes are
    /// already in the file.
    static func rangeHeader(from offset: Int64) -> String {
        "bytes=\(offset)-"
    }

    /// Opens the file for `head`, the answer to a request that asked for the bytes from
    /// `requestedOffset` (0 if it asked for everything).
    ///
    /// A `206 Partial Content` whose `Content-Range` starts at `requestedOffset` is
    /// appended after the bytes already there; any other success starts the file over.
    /// A 206 for another offset is not trusted (the file would be corrupt): it fails.
    package init(url: URL, head: HTTPURLResponse, requestedOffset: Int64) throws {
        self.url = url
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: url)
        } catch {
            throw LeashError.fileAccess(
                reason: "the download's file cannot be opened for writing", url: url, underlying: error)
        }
        var offset: Int64 = 0
        if head.statusCode == 206, requestedOffset > 0 {
            guard let start = Self.rangeStart(head.value(forHTTPHeaderField: "Content-Range")), start == requestedOffset
            else {
                try? handle.close()
                throw LeashError.invalidResponse(
                    reason: "206 Partial Content for \(head.value(forHTTPHeaderField: "Content-Range") ?? "no range"), "
                        + "but the bytes from \(requestedOffset) were asked for")
            }
            offset = requestedOffset
        }
        do {
            // Only a file longer than what it keeps is cut (not every file can be truncated:
            // a device cannot, and needs not be).
            if Self.existingSize(of: url) != offset { try handle.truncate(atOffset: UInt64(offset)) }
            try handle.seek(toOffset: UInt64(offset))
        } catch {
            try? handle.close()
            throw LeashError.fileAccess(reason: "the download's file cannot be prepared", url: url, underlying: error)
        }
        self.handle = handle
        self.startOffset = offset
    }

    /// Appends `data`.
    package func write(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw LeashError.fileAccess(
                reason: "writing the download failed after \(startOffset + writtenBytes) bytes (is the disk full?)",
                url: url, underlying: error)
        }
        writtenBytes += Int64(data.count)
    }

    /// Flushes and closes the file.
    package func close() throws {
        do {
            try handle.close()
        } catch {
            throw LeashError.fileAccess(reason: "the download's file could not be closed", url: url, underlying: error)
        }
    }

    /// Closes the file after a failure, ignoring errors (the failure is what counts).
    func abandon() {
        try? handle.close()
    }

    /// The first byte of `bytes 100-199/1000`.
    static func rangeStart(_ contentRange: String?) -> Int64? {
        guard let contentRange else { return nil }
        let trimmed = contentRange.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int64(spec[..<dash].trimmingCharacters(in: .whitespaces))
    }
}
