import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The serializer of a download: moves the downloaded file (complete, and accepted by
/// validation and the interceptors) to its destination, and gives the destination's URL.
///
/// The destination's folder is created if needed, and a file already there is replaced.
/// A body that arrives in memory instead (a value an interceptor answered with, such as a
/// cached one) is written to the destination.
struct FileDestinationSerializer: ResponseSerializer {
    /// Where the file goes.
    let destination: URL

    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws -> URL {
        if let error { throw error }
        try prepareDestination()
        do {
            try (data ?? Data()).write(to: destination, options: .atomic)
        } catch {
            throw LeashError.fileAccess(
                reason: "the download cannot be written to its destination", url: destination, underlying: error)
        }
        return destination
    }

    func serialize(request: URLRequest?, response: HTTPURLResponse?, file: URL) throws -> URL {
        try prepareDestination()
        do {
            try FileManager.default.moveItem(at: file, to: destination)
        } catch {
            throw LeashError.fileAccess(
                reason: "the downloaded file cannot be moved to its destination", url: destination, underlying: error)
        }
        return destination
    }

    /// Creates the destination's folder and removes a file already there.
    private func prepareDestination() throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            if manager.fileExists(atPath: destination.path) { try manager.removeItem(at: destination) }
        } catch {
            throw LeashError.fileAccess(
                reason: "the download's destination cannot be prepared", url: destination, underlying: error)
        }
    }
}
