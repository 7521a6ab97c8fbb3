import Foundation

extension LoopbackResponse {
    /// A response body produced while it is written: its length and a function that fills
    /// any byte range of it, so that a body of gigabytes is never held in memory.
    package struct GeneratedBody: Sendable {
        /// The length of the whole body in bytes.
        package let length: Int
        /// Fills `buffer` with the body's bytes from `offset` on (`buffer.count` of them,
        /// never past `length`). Runs on the connection's thread, once per piece written.
        package let fill: @Sendable (_ offset: Int, _ buffer: UnsafeMutableRawBufferPointer) -> Void

        /// A body of `length` bytes (negative counts as 0) produced by `fill`.
        package init(
            length: Int, fill: @escaping @Sendable (_ offset: Int, _ buffer: UnsafeMutableRawBufferPointer) -> Void
        ) {
            self.length = max(0, length)
            self.fill = fill
        }

        /// `length` bytes of `LoopbackServer.patternByte(at:)`.
        package static func pattern(length: Int) -> GeneratedBody {
            GeneratedBody(length: length) { offset, buffer in LoopbackServer.fillPattern(buffer, from: offset) }
        }
    }

    /// How a trickled body goes out: `byteCount` bytes, then a pause of `interval` seconds,
    /// repeatedly (the last piece may be shorter; no pause follows it).
    package struct Trickle: Sendable, Equatable {
        /// The bytes written before each pause (at least 1).
        package var byteCount: Int
        /// The pause in seconds.
        package var interval: TimeInterval

        /// Pieces of `byteCount` bytes (at least 1) with `interval` seconds between them.
        package init(byteCount: Int, interval: TimeInterval) {
            self.byteCount = max(1, byteCount)
            self.interval = max(0, interval)
        }
    }

    /// A 200 whose body of `length` bytes is produced by `fill` as it is written, with
    /// `Content-Type: contentType`, answering `Range` requests (see `acceptsRanges`).
    package static func generated(
        length: Int, contentType: String = "application/octet-stream",
        fill: @escaping @Sendable (_ offset: Int, _ buffer: UnsafeMutableRawBufferPointer) -> Void
    ) -> LoopbackResponse {
        var response = LoopbackResponse(headers: ["Content-Type": contentType])
        response.generatedBody = GeneratedBody(length: length, fill: fill)
        response.acceptsRanges = true
        return response
    }

    /// What `GET /bytes/{length}` answers: `length` bytes of `LoopbackServer.patternByte(at:)`,
    /// generated as they are written, `application/octet-stream`, with the strong
    /// `ETag: "pattern-{length}"`, answering `Range` requests.
    package static func pattern(length: Int) -> LoopbackResponse {
        var response = LoopbackResponse(headers: [
            "Content-Type": "application/octet-stream", "ETag": "\"pattern-\(max(0, length))\"",
        ])
        response.generatedBody = .pattern(length: length)
        response.acceptsRanges = true
        return response
    }

    /// This response, answering `Range` requests or not (see `acceptsRanges`).
    package func acceptingRanges(_ accepts: Bool = true) -> LoopbackResponse {
        var copy = self
        copy.acceptsRanges = accepts
        return copy
    }

    /// This response, after `count` of whose body bytes the connection closes although the
    /// head announced them all (see `dropAfterBodyBytes`).
    package func droppingConnection(afterBodyBytes count: Int) -> LoopbackResponse {
        var copy = self
        copy.dropAfterBodyBytes = max(0, count)
        return copy
    }

    /// This response, its body written `byteCount` bytes at a time with a pause of
    /// `interval` seconds after each piece (see `Trickle`). With `chunked(size:)`, each piece
    /// goes out as its own chunks.
    package func trickled(bytes byteCount: Int, every interval: TimeInterval) -> LoopbackResponse {
        var copy = self
        copy.trickle = Trickle(byteCount: byteCount, interval: interval)
        return copy
    }
}
