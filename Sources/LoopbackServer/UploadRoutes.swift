import Foundation
import LeashDigest

extension LoopbackServer {
    /// What `/upload` answers: the body it read, counted and hashed as it arrived.
    public struct ReceivedUpload: Codable, Sendable, Equatable {
        /// The body's length in bytes (de-chunked).
        public var bytes: Int
        /// The body's SHA-256, 64 lowercase hexadecimal digits ("" when asked not to hash).
        public var sha256: String
        /// The request's `Content-Type`, or "" without one.
        public var contentType: String
        /// Whether the body came with `Transfer-Encoding: chunked`.
        public var chunked: Bool

        /// Creates an answer.
        public init(bytes: Int, sha256: String, contentType: String, chunked: Bool) {
            self.bytes = bytes
            self.sha256 = sha256
            self.contentType = contentType
            self.chunked = chunked
        }
    }

    /// `/upload`: reads the body as it arrives and answers `ReceivedUpload`.
    static func receiveUpload(_ request: LoopbackRequest, _ body: LoopbackBodyReader) -> LoopbackResponse {
        let hashes = request.queryValue("sha256") != "0"
        var hasher = SHA256()
        var count = 0
        do {
            try body.readToEnd { run in
                if hashes { hasher.update(run) }
                count += run.count
            }
        } catch {
            // The server answers a malformed body itself and a departed client not at all.
            return .status(400)
        }
        return .json(
            ReceivedUpload(
                bytes: count, sha256: hashes ? hasher.finalizeHex() : "",
                contentType: request.headers["Content-Type"] ?? "",
                chunked: body.isChunked))
    }
}
