import Foundation
import LeashDigest

extension LoopbackServer {
    /// What `/upload` answers: the body it read, counted and hashed as it arrived.
    package struct ReceivedUpload: Codable, Sendable, Equatable {
        /// The body's length in bytes (de-chunked).
        package var bytes: Int
        /// The body's SHA-256, 64 lowercase hexadecimal digits ("" when asked not to hash).
        package var sha256: String
        /// The request's `Content-Type`, or "" without one.
        package var contentType: String
        /// Whether the body came with `Transfer-Encoding: chunked`.
        package var chunked: Bool

        /// Creates an answer.
        package init(bytes: Int, sha256: String, contentType: String, chunked: Bool) {
            self.bytes = bytes
            self.sha256 = sha256
            self.contentType = contentType
            self.chunked = chunked
        }
    }

    /// What `/multipart` answers: the parts of a `multipart/form-data` body, in order.
    package struct ReceivedMultipart: Codable, Sendable, Equatable {
        /// One part of the form.
        package struct Part: Codable, Sendable, Equatable {
            /// The `name` parameter of its `Content-Disposition`, exactly as between the quotes
            /// (nothing unescaped: `%22` stays `%22`).
            package var name: String
            /// The `filename` parameter, exactly as between the quotes; nil without one.
            package var fileName: String?
            /// Its `Content-Type` field; nil without one.
            package var contentType: String?
            /// The content's length in bytes.
            package var bytes: Int
            /// The content's SHA-256, 64 lowercase hexadecimal digits.
            package var sha256: String
            /// The content as text for a part without `fileName` of at most 1 KB of valid
            /// UTF-8; nil otherwise.
            package var value: String?

            /// Creates a part.
            package init(
                name: String, fileName: String?, contentType: String?, bytes: Int, sha256: String, value: String?
            ) {
                self.name = name
                self.fileName = fileName
                self.contentType = contentType
                self.bytes = bytes
                self.sha256 = sha256
                self.value = value
            }

            private enum CodingKeys: String, CodingKey {
                case name, fileName, contentType, bytes, sha256, value
            }

            /// Encodes every field, absent ones as `null`.
            package func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(name, forKey: .name)
                try container.encode(fileName, forKey: .fileName)
                try container.encode(contentType, forKey: .contentType)
                try container.encode(bytes, forKey: .bytes)
                try container.encode(sha256, forKey: .sha256)
                try container.encode(value, forKey: .value)
            }
        }

        /// The parts, in the order received.
        package var parts: [Part]

        /// Creates an answer.
        package init(parts: [Part]) {
            self.parts = parts
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

    /// `/multipart`: parses the form as it arrives and answers `ReceivedMultipart`, or 400
    /// with the reason once the rest of the body is read (so the connection stays usable).
    static func receiveMultipart(_ request: LoopbackRequest, _ body: LoopbackBodyReader) -> LoopbackResponse {
        do throws(MultipartFormParser.Failure) {
            var parser = MultipartFormParser(
                boundary: try MultipartFormParser.boundary(ofContentType: request.headers["Content-Type"]))
            var failure: MultipartFormParser.Failure?
            do {
                try body.readToEnd { run in
                    guard failure == nil else { return }
                    do throws(MultipartFormParser.Failure) {
                        try parser.feed(run)
                    } catch {
                        failure = error
                    }
                }
            } catch {
                return .status(400)
            }
            if let failure { throw failure }
            return .json(ReceivedMultipart(parts: try parser.finish()))
        } catch {
            _ = try? body.discardRest()
            return .failure(status: 400, reason: error.reason)
        }
    }
}
