#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LeashDigest

/// Parses a `multipart/form-data` body (RFC 7578 over RFC 2046 §5.1.1) as it arrives.
///
/// It keeps a window of undecided bytes (one read, plus a part's header block of at most
/// 16 KB), never a part's content: contents are counted and hashed as they pass, and only
/// the first kilobyte of a text field is kept as its value. Delimiters are found by a
/// `memchr` for their first byte and a `memcmp` of the rest.
struct MultipartFormParser {
    /// Why the body is not valid multipart.
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// The largest header block of a part.
    static let maxHeaderBytes = 16 * 1024
    /// The most parts a body may have.
    static let maxParts = 1000
    /// Text fields up to this size are reported with their value.
    static let maxValueBytes = 1024

    private enum State {
        /// Before the first delimiter (the preamble is ignored).
        case preamble
        /// Right after a delimiter: `--` ends the body, CRLF starts a part.
        case afterDelimiter
        case headers
        case content
        /// After the close delimiter (the epilogue is ignored).
        case epilogue
    }

    private struct PartInProgress {
        let name: String
        let fileName: String?
        let contentType: String?
        var byteCount = 0
        var hasher = SHA256()
        /// The value so far, while the part is a text field not longer than `maxValueBytes`.
        var value: [UInt8]?
    }

    /// CR LF `--` boundary.
    private let delimiter: [UInt8]
    /// Received bytes not yet decided on. It starts with the CR LF that the first delimiter
    /// lacks when the body opens with it.
    private var window: [UInt8] = [0x0D, 0x0A]
    private var state = State.preamble
    private var current: PartInProgress?
    private(set) var parts: [LoopbackServer.ReceivedMultipart.Part] = []

    /// A parser for a body whose parts are separated by `boundary`.
    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// The boundary of a `multipart/form-data` content type, or why there is none.
    static func boundary(ofContentType contentType: String?) throws(Failure) -> String {
        guard let contentType, let parsed = HeaderParameters(contentType),
            LoopbackHeaders.namesMatch(parsed.value, "multipart/form-data")
        else { throw Failure(reason: "Content-Type is not multipart/form-data") }
        guard let boundary = parsed.parameter("boundary") else {
            throw Failure(reason: "Content-Type has no boundary parameter")
        }
        guard (1...70).contains(boundary.utf8.count) else {
            throw Failure(reason: "the boundary must be 1 to 70 characters long")
        }
        return boundary
    }

    /// Parses the next bytes of the body.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
        if case .epilogue = state { return }
        window.append(contentsOf: bytes)
        var position = 0
        defer { window.removeFirst(position) }
        try advance(&position)
    }

    /// Ends the body.
    /// - Returns: the parts, in order.
    /// - Throws: when the close delimiter has not arrived.
    mutating func finish() throws(Failure) -> [LoopbackServer.ReceivedMultipart.Part] {
        guard case .epilogue = state else {
            throw Failure(reason: "the body ended before the closing boundary")
        }
        return parts
    }

    private mutating func advance(_ position: inout Int) throws(Failure) {
        while true {
            switch state {
            case .preamble, .content:
                if let match = Self.find(delimiter, in: window, from: position) {
                    emit(position..<match)
                    finishPart()
                    position = match + delimiter.count
                    state = .afterDelimiter
                } else {
                    // Keep what could be the start of a delimiter split across reads.
                    let safeEnd = max(position, window.count - (delimiter.count - 1))
                    emit(position..<safeEnd)
                    position = safeEnd
                    return
                }
            case .afterDelimiter:
                guard window.count - position >= 2 else { return }
                if window[position] == UInt8(ascii: "-") && window[position + 1] == UInt8(ascii: "-") {
                    state = .epilogue
                    position = window.count
                    return
                }
                var index = position
                while index < window.count && (window[index] == 0x20 || window[index] == 0x09) { index += 1 }
                guard window.count - index >= 2 else {
                    if index - position > 1024 { throw Failure(reason: "a boundary line is too long") }
                    return
                }
                guard window[index] == 0x0D && window[index + 1] == 0x0A else {
                    throw Failure(reason: "a boundary is followed by other bytes than CRLF or --")
                }
                position = index + 2
                state = .headers
            case .headers:
                let blockEnd: Int
                if window.count - position >= 2 && window[position] == 0x0D && window[position + 1] == 0x0A {
                    blockEnd = position
                } else if let end = Self.find(Array("\r\n\r\n".utf8), in: window, from: position) {
                    blockEnd = end + 2
                } else {
                    if window.count - position > Self.maxHeaderBytes {
                        throw Failure(reason: "a part's header block is larger than 16 KB")
                    }
                    return
                }
                guard blockEnd - position <= Self.maxHeaderBytes else {
                    throw Failure(reason: "a part's header block is larger than 16 KB")
                }
                try startPart(headerBlock: window[position..<blockEnd])
                position = blockEnd + 2
                state = .content
            case .epilogue:
                position = window.count
                return
            }
        }
    }

    /// Adds `window[range]` to the current part's content (dropped in the preamble).
    private mutating func emit(_ range: Range<Int>) {
        guard !range.isEmpty, var part = current else { return }
        current = nil
        window[range].withUnsafeBytes { part.hasher.update($0) }
        part.byteCount += range.count
        if part.value != nil {
            if part.byteCount <= Self.maxValueBytes {
                part.value?.append(contentsOf: window[range])
            } else {
                part.value = nil
            }
        }
        current = part
    }

    private mutating func finishPart() {
        guard let part = current else { return }
        current = nil
        parts.append(
            LoopbackServer.ReceivedMultipart.Part(
                name: part.name, fileName: part.fileName, contentType: part.contentType, bytes: part.byteCount,
                sha256: part.hasher.finalizeHex(), value: part.value.flatMap { String(bytes: $0, encoding: .utf8) }))
    }

    /// Starts a part from its header block (the header lines, each ending in CRLF).
    private mutating func startPart(headerBlock: ArraySlice<UInt8>) throws(Failure) {
        guard parts.count < Self.maxParts else { throw Failure(reason: "more than \(Self.maxParts) parts") }
        var disposition: HeaderParameters?
        var contentType: String?
        let text = String(decoding: headerBlock, as: UTF8.self)
        for line in text.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), line.first != " ", line.first != "\t" else {
                throw Failure(reason: "a part has a malformed header line")
            }
            let name = line[..<colon].trimmingSpaces()
            let value = String(line[line.index(after: colon)...].trimmingSpaces())
            if LoopbackHeaders.namesMatch(name, "Content-Disposition") {
                guard let parsed = HeaderParameters(value), LoopbackHeaders.namesMatch(parsed.value, "form-data")
                else { throw Failure(reason: "a part's Content-Disposition is not form-data") }
                disposition = parsed
            } else if LoopbackHeaders.namesMatch(name, "Content-Type") {
                contentType = value
            }
        }
        guard let disposition else { throw Failure(reason: "a part has no Content-Disposition") }
        guard let name = disposition.parameter("name") else { throw Failure(reason: "a part has no name") }
        let fileName = disposition.parameter("filename")
        current = PartInProgress(
            name: name, fileName: fileName, contentType: contentType, value: fileName == nil ? [] : nil)
    }

    /// The offset of the first `needle` in `haystack` at or after `start`, or nil.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pattern in
                guard let base = hay.baseAddress, let patternBase = pattern.baseAddress, let first = needle.first
                else { return nil }
                let lastStart = hay.count - pattern.count
                var index = start
                while index <= lastStart {
                    guard let found = memchr(base + index, Int32(first), lastStart - index + 1) else { return nil }
                    let offset = base.distance(to: UnsafeRawPointer(found))
                    if memcmp(base + offset, patternBase, pattern.count) == 0 { return offset }
                    index = offset + 1
                }
                return nil
            }
        }
    }
}
