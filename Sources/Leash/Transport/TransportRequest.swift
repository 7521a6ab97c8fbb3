import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `Transport.transfer(_:)` is asked to do: the request, where its body comes from,
/// where the response's body goes, and whether progress is wanted.
public struct TransportRequest: @unchecked Sendable {
    // @unchecked: URLRequest and URL are immutable values here.

    /// Where the request's body comes from.
    public enum Body: Sendable, Equatable {
        /// `urlRequest.httpBody`, if any.
        case inRequest
        /// The file at this URL, streamed from disk (never read whole into memory).
        case file(URL)
    }

    /// Where the response's body goes.
    public enum Destination: Sendable, Equatable {
        /// Into memory: `TransportResponse.data`.
        case memory
        /// Into the file at this URL, which exists (Leash creates it). A success's body is
        /// written there (`TransportResponse.file`); other statuses' bodies (error pages)
        /// stay in memory and leave the file as it was. If the file already holds bytes
        /// (an earlier attempt's), the transport asks for the rest (`Range:
        /// bytes=<size>-`) and appends when the server answers `206 Partial Content` for
        /// that offset; on any other success it starts the file over.
        case file(URL)
        /// Handed on as it arrives, in `TransportEvent.body` chunks between the head and
        /// the end, for a success (2xx: see `TransferBodyPlan.streamsBody(status:)`); the
        /// completing `TransportResponse` then has an empty `data`. Other statuses' bodies
        /// (error pages) are kept in memory, up to `TransferBodyPlan.errorBodyLimit`
        /// bytes, and come whole in `.completed`, as for `.memory`. A transport that
        /// cannot stream may hand the whole body as one chunk.
        case stream
    }

    /// The request, with its headers (and its body if `body` is `.inRequest`).
    public var urlRequest: URLRequest
    /// Where the body comes from.
    public var body: Body
    /// Where the response's body goes.
    public var destination: Destination
    /// Whether the transport should report progress as bytes move (else only the head
    /// and the end are reported).
    public var reportsProgress: Bool

    /// A transfer of `urlRequest`.
    public init(
        _ urlRequest: URLRequest, body: Body = .inRequest, destination: Destination = .memory,
        reportsProgress: Bool = true
    ) {
        self.urlRequest = urlRequest
        self.body = body
        self.destination = destination
        self.reportsProgress = reportsProgress
    }
}

/// What happens to a transfer's bytes, in order: upload progress (while the body is
/// sent), the response head, download progress (while the body arrives), and the end.
public enum TransportEvent: @unchecked Sendable {
    // @unchecked: HTTPURLResponse is immutable but not Sendable on every platform.

    /// Bytes of the request's body sent so far.
    case uploadProgress(TransferProgress)
    /// The response head arrived.
    case response(HTTPURLResponse)
    /// Bytes of the response's body received so far.
    case downloadProgress(TransferProgress)
    /// The next bytes of the response's body, for a `.stream` destination (after
    /// `.response`, before `.completed`). Never empty.
    case body(Data)
    /// The response is complete: the last event before the observable completes.
    case completed(TransportResponse)
}
