import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where one response's body goes as it arrives, by the transfer's destination (see
/// `TransportRequest.Destination`): kept in memory, written to the destination file (a
/// success's), or handed on in chunks (a stream's success), with the progress to report.
///
/// Used by one exchange, on one thread at a time (its connection's completions).
final class HTTP1ResponseSink {
    /// What the body does next.
    enum Keep {
        /// Go on reading.
        case more
        /// The error page of a stream reached its limit: the response ends with what was kept.
        case enough
    }

    private let destination: TransportRequest.Destination
    /// Whether progress is reported (a transfer that asked for it).
    let reportsProgress: Bool
    private let requestedOffset: Int64
    private let output: any HTTP1Output
    private(set) var head: HTTPURLResponse?
    private var body = Data()
    private var writer: BodyFileWriter?
    private var streams = false
    private var received: Int64 = 0
    private var expected: Int64?

    init(request: TransportRequest, requestedOffset: Int64, output: any HTTP1Output) {
        destination = request.destination
        reportsProgress = request.reportsProgress && output.wantsEvents
        self.requestedOffset = requestedOffset
        self.output = output
    }

    /// A plain request's sink: the body in memory, no events.
    init(plainOutput output: any HTTP1Output) {
        destination = .memory
        reportsProgress = false
        requestedOffset = 0
        self.output = output
    }

    /// Whether the destination is a stream (whatever the status).
    var isStreamDestination: Bool { destination == .stream }

    /// The final head arrived; `decodedLength` is the body's length as the app will see it,
    /// if known. Throws when the destination file cannot be opened.
    func received(head: HTTPURLResponse, decodedLength: Int64?) throws {
        self.head = head
        body = Data()
        received = 0
        if case .file(let url) = destination, TransferBodyPlan.writesToFile(status: head.statusCode) {
            let writer = try BodyFileWriter(url: url, head: head, requestedOffset: requestedOffset)
            self.writer = writer
            received = writer.startOffset
            expected = decodedLength.map { writer.startOffset + $0 }
        } else {
            streams = destination == .stream && TransferBodyPlan.streamsBody(status: head.statusCode)
            expected = decodedLength
        }
        if output.wantsEvents { output.emit(.response(head)) }
    }

    /// The next decoded bytes of the body.
    func received(body chunk: Data) throws -> Keep {
        guard !chunk.isEmpty else { return .more }
        var keep = Keep.more
        if let writer {
            try writer.write(chunk)
        } else if streams {
            output.emit(.body(chunk))
        } else if destination == .stream, body.count + chunk.count > TransferBodyPlan.errorBodyLimit {
            // An error page of a stream that does not end: its beginning is the answer.
            body.append(chunk.prefix(TransferBodyPlan.errorBodyLimit - body.count))
            keep = .enough
        } else if body.isEmpty {
            body = chunk
        } else {
            body.append(chunk)
        }
        received += Int64(chunk.count)
        if reportsBodyProgress {
            output.emit(.downloadProgress(TransferProgress(completedBytes: received, expectedBytes: expected)))
        }
        return keep
    }

    /// The body ended: the response, with the last progress reported (every byte).
    func complete(metrics: TransportMetrics?) throws -> TransportResponse {
        guard let head else { throw LeashError.invalidResponse(reason: "the response ended without a head") }
        var response: TransportResponse
        if let writer {
            self.writer = nil
            try writer.close()
            response = TransportResponse(httpResponse: head, file: writer.url)
        } else {
            response = TransportResponse(httpResponse: head, data: body)
            body = Data()
        }
        response.metrics = metrics
        if reportsBodyProgress {
            output.emit(.downloadProgress(TransferProgress(completedBytes: received, expectedBytes: received)))
        }
        return response
    }

    /// The response will not complete: a partly written file is left as it is (a later
    /// attempt resumes it).
    func abandon() {
        writer?.abandon()
        writer = nil
        body = Data()
    }

    /// Whether the body's progress is reported: not for an error page that a download
    /// keeps in memory (its progress bar would fill just before the failure).
    private var reportsBodyProgress: Bool {
        guard reportsProgress else { return false }
        if case .file = destination { return writer != nil }
        return true
    }
}
