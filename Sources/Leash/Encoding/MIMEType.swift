/// Media types guessed from file name extensions, for multipart file parts.
enum MIMEType {
    /// The type of a file named `fileName` (by its extension, in any case);
    /// `application/octet-stream` if the extension is missing or not in the table.
    static func guess(forFileName fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return octetStream }
        let fileExtension = fileName[fileName.index(after: dot)...].lowercased()
        return byExtension[fileExtension] ?? octetStream
    }

    /// Any bytes: the type of a file whose type is not known.
    static let octetStream = "application/octet-stream"

    /// The common types of files apps upload; kept small on purpose: pass `mimeType:` for others.
    private static let byExtension: [String: String] = [
        "txt": "text/plain", "csv": "text/csv", "html": "text/html", "htm": "text/html", "css": "text/css",
        "js": "text/javascript", "md": "text/markdown", "json": "application/json", "xml": "application/xml",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "svg": "image/svg+xml", "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav",
        "mp4": "video/mp4", "mov": "video/quicktime",
    ]
}
