import Foundation
import Rx

/// A `multipart/form-data` body (RFC 7578): text fields, data and files, as an HTML form
/// with `enctype="multipart/form-data"` sends them.
///
/// ```swift
/// let form = MultipartFormData()
/// form.append("Ada", name: "name")
/// form.append(avatarData, name: "avatar", fileName: "ada.png", mimeType: "image/png")
/// form.append(fileAt: videoURL, name: "video")  // video.mp4, video/mp4: streamed from disk
/// // var parameters: Any? { form }
/// ```
///
/// As an endpoint's `parameters`, the request gets `Content-Type: multipart/form-data;
/// boundary=…` (always: the boundary must match the body). A form of at most
/// `encodingMemoryThreshold` bytes is encoded in memory as the request's body; a larger one
/// is written to a temporary file and sent from there, reading its files a chunk at a time.
///
/// Each part has `Content-Disposition: form-data; name="…"` (and `; filename="…"` for data
/// and files that have a file name), and `Content-Type` for data and files that have a
/// type. In names and file names, `"`, CR and LF are written `%22`, `%0D` and `%0A`, as
/// browsers do, so that no name can end its quoted string or start a header; other
/// characters, non-ASCII too, are sent as they are, in UTF-8 (RFC 7578 §4.2).
///
/// Nothing is read or checked until the form is encoded: then an invalid boundary, a MIME
/// type with a line break, or a file that is missing, not a regular file or unreadable ends
/// the execution with `LeashError.encoding` (naming the file), and so does a file whose
/// size changes while the form is sent. GET and HEAD cannot carry a form.
///
/// Appending is thread-safe; a form may be sent several times (each retry encodes it anew).
public final class MultipartFormData: Sendable {
    /// The delimiter between parts (a random `leash.boundary.<hex>` unless one was given).
    public let boundary: String

    private let state: LockedState<State>

    private struct State {
        var parts: [Part] = []
        var encodingMemoryThreshold: UInt64 = 10_000_000
    }

    /// One part: its name, optional file name and type, and its content.
    private struct Part {
        enum Content {
            case data(Data)
            case file(URL)
        }

        let name: String
        let fileName: String?
        let mimeType: String?
        let content: Content
    }

    /// An empty form.
    ///
    /// - Parameter boundary: the delimiter between parts: 1 to 70 of RFC 2046's characters
    ///   (letters, digits, `'()+_,-./:=?` and spaces, but not last). By default a random
    ///   one. An invalid boundary makes encoding fail with `LeashError.encoding`.
    public init(boundary: String? = nil) {
        self.boundary = boundary ?? Self.randomBoundary()
        self.state = LockedState(State())
    }

    /// `multipart/form-data; boundary=…`, the request's `Content-Type` (the boundary is
    /// quoted if it holds characters a header token cannot).
    public var contentType: String {
        let isToken = boundary.utf8.allSatisfy { Self.tokenBytes.contains($0) }
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// The largest form, in bytes, encoded in memory as the request's body (default
    /// 10,000,000); a larger one is staged in a temporary file and streamed.
    public var encodingMemoryThreshold: UInt64 {
        get { state.withLock { $0.encodingMemoryThreshold } }
        set { state.withLock { $0.encodingMemoryThreshold = newValue } }
    }

    /// Appends a text field, sent in UTF-8 without a `Content-Type` (text/plain).
    ///
    /// - Parameters:
    ///   - value: the field's value.
    ///   - name: the field's name.
    public func append(_ value: String, name: String) {
        append(Part(name: name, fileName: nil, mimeType: nil, content: .data(Data(value.utf8))))
    }

    /// Appends data, as a file if it has a file name.
    ///
    /// - Parameters:
    ///   - data: the part's content.
    ///   - name: the field's name.
    ///   - fileName: the file name the server sees, if any.
    ///   - mimeType: the part's `Content-Type`; if `nil`, guessed from `fileName`'s extension
    ///     when there is a file name (`application/octet-stream` if unknown), else none.
    public func append(_ data: Data, name: String, fileName: String? = nil, mimeType: String? = nil) {
        let type = mimeType ?? fileName.map(MIMEType.guess(forFileName:))
        append(Part(name: name, fileName: fileName, mimeType: type, content: .data(data)))
    }

    /// Appends a file, read only when the form is encoded (a chunk at a time if the form is
    /// larger than `encodingMemoryThreshold`).
    ///
    /// - Parameters:
    ///   - url: the file's URL.
    ///   - name: the field's name.
    ///   - fileName: the file name the server sees; by default the URL's last path component.
    ///   - mimeType: the part's `Content-Type`; by default guessed from the file name's
    ///     extension (`application/octet-stream` if unknown).
    public func append(fileAt url: URL, name: String, fileName: String? = nil, mimeType: String? = nil) {
        let fileName = fileName ?? url.lastPathComponent
        let type = mimeType ?? MIMEType.guess(forFileName: fileName)
        append(Part(name: name, fileName: fileName, mimeType: type, content: .file(url)))
    }

    private func append(_ part: Part) {
        state.withLock { $0.parts.append(part) }
    }

    // MARK: Encoding (used by the request builder and the pipeline)

    /// How many bytes a file part is read at a time.
    static let chunkSize = 1024 * 1024

    /// The exact length of the encoded form, in bytes. Files are measured, not read.
    ///
    /// - Throws: `LeashError.encoding` for an invalid boundary or MIME type, or a file part
    ///   that is missing, not a regular file or unreadable.
    package func contentLength() throws -> UInt64 {
        try plan().length
    }

    /// The encoded form, in memory.
    ///
    /// - Parameter expectedLength: the `contentLength()` the request was built with; if the
    ///   form no longer has that length, encoding fails rather than load what it became.
    /// - Throws: `LeashError.encoding`, as `contentLength()`, or if a file changes size.
    package func encoded(expectedLength: UInt64? = nil) throws -> Data {
        let plan = try plan()
        try plan.check(expectedLength: expectedLength)
        var data = Data(capacity: Int(clamping: plan.length))
        try plan.stream { data.append($0) }
        return data
    }

    /// Writes the encoded form to the file at `url` (created, or replaced), reading file
    /// parts `chunkSize` bytes at a time: however large the form, only a chunk of it is in
    /// memory.
    ///
    /// - Parameter expectedLength: the `contentLength()` sent as the request's
    ///   `Content-Length`; if the form no longer has that length (a file changed size, a
    ///   part was appended), writing fails rather than produce a body whose length lies.
    /// - Throws: `LeashError.encoding`, as `encoded(expectedLength:)`, or if the file cannot
    ///   be written; a partly written file is removed.
    func write(to url: URL, expectedLength: UInt64? = nil) throws {
        let plan = try plan()
        try plan.check(expectedLength: expectedLength)
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw LeashError.encoding(
                reason: "the form could not be written to \(url.path)",
                underlying: CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]))
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            var writer = BufferedWriter(handle: handle, url: url)
            try plan.stream { try writer.write($0) }
            try writer.flush()
        } catch {
            try? FileManager.default.removeItem(at: url)
            if error is LeashError { throw error }
            throw LeashError.encoding(reason: "the form could not be written to \(url.path)", underlying: error)
        }
    }

    /// What the encoded form is made of, with files measured: checks everything that can be
    /// checked before a byte is sent.
    func plan() throws -> EncodingPlan {
        if let problem = Self.problem(withBoundary: boundary) {
            throw LeashError.encoding(
                reason: "the multipart boundary \"\(boundary)\" is invalid: \(problem)", underlying: nil)
        }
        let parts = state.withLock { $0.parts }
        var plan = EncodingPlan()
        for part in parts {
            plan.append(Data(try header(of: part).utf8))
            switch part.content {
            case .data(let data):
                plan.append(data)
            case .file(let url):
                let partName = "part \"\(part.name)\""
                plan.append(
                    file: url, size: try FileInspection.sizeOfReadableFile(at: url, part: partName), part: partName)
            }
            plan.append(Data("\r\n".utf8))
        }
        plan.append(Data("--\(boundary)--\r\n".utf8))
        return plan
    }

    /// The delimiter line and headers of `part`, up to and including the blank line.
    private func header(of part: Part) throws -> String {
        var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
        if let fileName = part.fileName {
            header += "; filename=\"\(Self.escaped(fileName))\""
        }
        header += "\r\n"
        if let mimeType = part.mimeType {
            guard !mimeType.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw LeashError.encoding(
                    reason: "the MIME type of part \"\(part.name)\" contains a control character, which a header "
                        + "cannot hold",
                    underlying: nil)
            }
            header += "Content-Type: \(mimeType)\r\n"
        }
        return header + "\r\n"
    }

    /// `value` with `"`, CR and LF percent-encoded, as the HTML standard encodes names and
    /// file names in multipart/form-data.
    static func escaped(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result.append(contentsOf: "%22".unicodeScalars)
            case "\r": result.append(contentsOf: "%0D".unicodeScalars)
            case "\n": result.append(contentsOf: "%0A".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    // MARK: Boundaries

    /// What is wrong with `boundary` under RFC 2046 §5.1.1, or `nil` if nothing is.
    static func problem(withBoundary boundary: String) -> String? {
        if boundary.isEmpty { return "it is empty" }
        if let scalar = boundary.unicodeScalars.first(where: { !isBoundaryCharacter($0) }) {
            let shown =
                scalar.properties.generalCategory == .control ? "U+\(String(scalar.value, radix: 16))" : "\(scalar)"
            return "it contains \"\(shown)\"; use letters, digits and '()+_,-./:=? or spaces"
        }
        if boundary.utf8.count > 70 { return "it is longer than 70 characters" }
        if boundary.hasSuffix(" ") { return "it ends with a space" }
        return nil
    }

    private static func isBoundaryCharacter(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        return boundaryBytes.contains(UInt8(scalar.value))
    }

    /// RFC 2046's `bchars`.
    private static let boundaryBytes = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'()+_,-./:=? ".utf8)

    /// RFC 9110's `tchar`: a boundary made only of these needs no quotes in a header.
    private static let tokenBytes = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~".utf8)

    /// `leash.boundary.` and 32 random hex digits.
    private static func randomBoundary() -> String {
        let hex = (0..<2).map { _ in
            let digits = String(UInt64.random(in: .min ... .max), radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "leash.boundary." + hex.joined()
    }
}

/// The pieces of an encoded form in order: bytes, and files measured but not yet read.
struct EncodingPlan {
    enum Segment {
        case bytes(Data)
        case file(URL, size: UInt64, part: String)
    }

    private(set) var segments: [Segment] = []
    private(set) var length: UInt64 = 0

    mutating func append(_ data: Data) {
        segments.append(.bytes(data))
        length += UInt64(data.count)
    }

    mutating func append(file url: URL, size: UInt64, part: String) {
        segments.append(.file(url, size: size, part: part))
        length += size
    }

    func check(expectedLength: UInt64?) throws {
        guard let expectedLength, expectedLength != length else { return }
        throw LeashError.encoding(
            reason: "the form is now \(length) bytes long, not the \(expectedLength) its request was built with "
                + "(a file changed size or a part was appended); its Content-Length would be wrong",
            underlying: nil)
    }

    /// Hands the encoded form to `emit` in order, files `MultipartFormData.chunkSize` bytes at
    /// a time, checking that each file still has the size it was measured at.
    func stream(to emit: (Data) throws -> Void) throws {
        for segment in segments {
            switch segment {
            case .bytes(let data):
                try emit(data)
            case .file(let url, let size, let part):
                try Self.stream(file: url, size: size, part: part, to: emit)
            }
        }
    }

    private static func stream(file url: URL, size: UInt64, part: String, to emit: (Data) throws -> Void) throws {
        let subject = "the file \(url.path) (\(part))"
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw LeashError.encoding(reason: "\(subject) cannot be read", underlying: error)
        }
        defer { try? handle.close() }
        func read(_ count: Int) throws -> Data {
            do {
                return try handle.read(upToCount: count) ?? Data()
            } catch {
                throw LeashError.encoding(reason: "\(subject) cannot be read", underlying: error)
            }
        }
        var remaining = size
        while remaining > 0 {
            let chunk = try read(Int(min(UInt64(MultipartFormData.chunkSize), remaining)))
            guard !chunk.isEmpty else {
                throw LeashError.encoding(
                    reason: "\(subject) became shorter than the \(size) bytes it was measured at while the form was "
                        + "encoded; the body's length would not match its Content-Length",
                    underlying: nil)
            }
            try emit(chunk)
            remaining -= UInt64(chunk.count)
        }
        guard try read(1).isEmpty else {
            throw LeashError.encoding(
                reason: "\(subject) became longer than the \(size) bytes it was measured at while the form was "
                    + "encoded; the body's length would not match its Content-Length",
                underlying: nil)
        }
    }
}

/// Collects small writes (headers, delimiters) into chunks before they reach the file.
private struct BufferedWriter {
    let handle: FileHandle
    let url: URL
    private var buffer = Data()

    init(handle: FileHandle, url: URL) {
        self.handle = handle
        self.url = url
        buffer.reserveCapacity(MultipartFormData.chunkSize)
    }

    mutating func write(_ data: Data) throws {
        // A whole chunk (a file's) goes straight to the file, after what is buffered:
        // copying it through the buffer cost as much as the writing.
        if data.count >= MultipartFormData.chunkSize {
            try flush()
            try put(data)
            return
        }
        buffer.append(data)
        if buffer.count >= MultipartFormData.chunkSize { try flush() }
    }

    private func put(_ data: Data) throws {
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw LeashError.encoding(reason: "the form could not be written to \(url.path)", underlying: error)
        }
    }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try put(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
