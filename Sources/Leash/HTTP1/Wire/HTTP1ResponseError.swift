import Foundation

/// Why an HTTP/1.1 response could not be parsed: each case says what the server sent (or failed to send).
///
/// Texts the server sent are carried as short excerpts (see `excerpt(_:)`) so that an error never holds an
/// unbounded or unprintable string; `description` is the sentence an app sees in a `URLError`'s `userInfo`.
package enum HTTP1ResponseError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The connection closed before any byte of a response arrived (the request may not have been seen).
    case closedBeforeHead
    /// The connection closed after `receivedBytes` bytes of response heads, before the final head was complete.
    case closedInsideHead(receivedBytes: Int)
    /// The connection closed inside the body after `received` bytes of it; `expected` is nil for a chunked body.
    case closedInsideBody(received: Int64, expected: Int64?)
    /// A head was longer than `maximumHeadBytes`.
    case headTooLarge(limit: Int)
    /// A status, header or trailer line was longer than `maximumLineBytes`.
    case lineTooLong(limit: Int)
    /// A head had more than `maximumHeaderCount` header fields.
    case tooManyHeaders(limit: Int)
    /// More than `maximumInterimResponses` 1xx heads came before the final head.
    case tooManyInterimResponses(limit: Int)
    /// The status line (excerpt) is not `HTTP/1.x NNN reason`.
    case malformedStatusLine(String)
    /// The status line names an HTTP version (excerpt) other than HTTP/1.0 and HTTP/1.1.
    case unsupportedVersion(String)
    /// A header line (excerpt) is not a valid `name: value` field.
    case malformedHeader(String)
    /// A `Content-Length` value (excerpt) is not a non-negative decimal integer that fits in 64 bits.
    case invalidContentLength(String)
    /// The `Content-Length` values of a head differ.
    case conflictingContentLengths
    /// A chunk-size line (excerpt) is not a hexadecimal size that fits in 64 bits with optional extensions.
    case malformedChunkSize(String)
    /// A chunk-size line was longer than `maximumChunkLineBytes`.
    case chunkLineTooLong(limit: Int)
    /// A chunk's data was not followed by a line ending.
    case missingChunkTerminator
    /// The trailer section was longer than `maximumTrailerBytes`.
    case trailersTooLarge(limit: Int)
    /// A trailer line (excerpt) is not a valid `name: value` field.
    case malformedTrailer(String)

    /// A sentence saying what went wrong, for people reading logs and error messages.
    package var description: String {
        switch self {
        case .closedBeforeHead:
            return "The connection closed before the server sent a response."
        case .closedInsideHead(let receivedBytes):
            return "The connection closed after \(receivedBytes) bytes of the response head, before it was complete."
        case .closedInsideBody(let received, let expected?):
            return "The connection closed after \(received) of the \(expected) bytes of the response body."
        case .closedInsideBody(let received, nil):
            return "The connection closed inside the chunked response body, after \(received) bytes of it."
        case .headTooLarge(let limit):
            return "The response head was longer than the limit of \(limit) bytes."
        case .lineTooLong(let limit):
            return "A line of the response head or trailers was longer than the limit of \(limit) bytes."
        case .tooManyHeaders(let limit):
            return "The response head had more than the limit of \(limit) header fields."
        case .tooManyInterimResponses(let limit):
            return "The server sent more than the limit of \(limit) interim (1xx) responses."
        case .malformedStatusLine(let excerpt):
            return "The response's status line is malformed: \"\(excerpt)\"."
        case .unsupportedVersion(let excerpt):
            return "The response uses an unsupported HTTP version: \"\(excerpt)\"."
        case .malformedHeader(let excerpt):
            return "A response header field is malformed: \"\(excerpt)\"."
        case .invalidContentLength(let excerpt):
            return "The response's Content-Length is not a valid length: \"\(excerpt)\"."
        case .conflictingContentLengths:
            return "The response has several different Content-Length values."
        case .malformedChunkSize(let excerpt):
            return "A chunk size of the chunked response body is malformed: \"\(excerpt)\"."
        case .chunkLineTooLong(let limit):
            return "A chunk-size line of the response body was longer than the limit of \(limit) bytes."
        case .missingChunkTerminator:
            return "A chunk of the response body was not followed by a line ending."
        case .trailersTooLarge(let limit):
            return "The response's trailer fields were longer than the limit of \(limit) bytes."
        case .malformedTrailer(let excerpt):
            return "A response trailer field is malformed: \"\(excerpt)\"."
        }
    }

    /// The longest excerpt, in characters, that an error carries.
    static let excerptLength = 64

    /// `bytes` as a short printable excerpt: printable ASCII as is, everything else escaped (`\r`, `\n`, `\t`,
    /// `\0`, `\\`, `\xNN`), cut after `excerptLength` characters with a trailing "…".
    static func excerpt(_ bytes: UnsafeRawBufferPointer) -> String {
        var text = ""
        for byte in bytes {
            let piece: String
            switch byte {
            case 0x0D: piece = "\\r"
            case 0x0A: piece = "\\n"
            case 0x09: piece = "\\t"
            case 0x00: piece = "\\0"
            case 0x5C: piece = "\\\\"
            case 0x20...0x7E: piece = String(UnicodeScalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                piece = byte < 0x10 ? "\\x0" + hex : "\\x" + hex
            }
            if text.utf8.count + piece.utf8.count > excerptLength {
                return text + "…"
            }
            text += piece
        }
        return text
    }

    /// `text` as an excerpt (see `excerpt(_:)` for bytes).
    static func excerpt(_ text: String) -> String {
        let bytes = Array(text.utf8.prefix(excerptLength + 1))
        return bytes.withUnsafeBytes { excerpt($0) }
    }
}
