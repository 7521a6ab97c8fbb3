import Foundation

/// A file sent as the whole request body, streamed from disk rather than loaded into
/// memory.
///
/// ```swift
/// var parameters: Any? { UploadFile(videoURL, contentType: "video/mp4") }
/// ```
///
/// The request gets `Content-Type: contentType` (unless a header sets it) and
/// `Content-Length` (the file's size). A file that does not exist, is a directory, or
/// cannot be read ends the execution with `LeashError.encoding` before anything is sent;
/// its reason names the file and its underlying error is the cause. GET and HEAD cannot
/// carry it.
public struct UploadFile: Sendable {
    /// The file's URL (a `file:` URL).
    public let url: URL
    /// The file's media type.
    public let contentType: String

    /// The file at `url`, of type `contentType`.
    public init(_ url: URL, contentType: String = "application/octet-stream") {
        self.url = url
        self.contentType = contentType
    }
}

/// Checks, before a request is sent, that a file it streams can be: a readable regular file.
package enum FileInspection {
    /// The size of the regular, readable file at `url`.
    ///
    /// - Parameter part: the form part the file belongs to, if any, for the error.
    /// - Throws: `LeashError.encoding` naming the file, with the cause as its underlying error.
    package static func sizeOfReadableFile(at url: URL, part: String? = nil) throws -> UInt64 {
        let subject = "the file " + (url.isFileURL ? url.path : url.absoluteString) + (part.map { " (\($0))" } ?? "")
        guard url.isFileURL else {
            throw LeashError.encoding(reason: "\(subject) is not a file URL", underlying: nil)
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile {
            throw LeashError.encoding(reason: "\(subject) does not exist", underlying: error)
        } catch {
            throw LeashError.encoding(reason: "\(subject) cannot be read", underlying: error)
        }
        switch attributes[.type] as? FileAttributeType {
        case .typeRegular?:
            break
        case .typeDirectory?:
            throw LeashError.encoding(reason: "\(subject) is a directory", underlying: POSIXError(.EISDIR))
        default:
            // A pipe or a device has no size to send as Content-Length (and opening a pipe
            // could block until someone writes to it).
            throw LeashError.encoding(reason: "\(subject) is not a regular file", underlying: nil)
        }
        guard let size = (attributes[.size] as? NSNumber)?.uint64Value else {
            throw LeashError.encoding(reason: "the size of \(subject) cannot be read", underlying: nil)
        }
        do {
            try FileHandle(forReadingFrom: url).close()
        } catch {
            throw LeashError.encoding(reason: "\(subject) cannot be read", underlying: error)
        }
        return size
    }
}
