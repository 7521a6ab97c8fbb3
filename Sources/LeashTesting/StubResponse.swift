import Foundation
import Leash
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One scripted answer of a `StubTransport`.
///
/// Delays and intervals are in seconds (`TimeInterval`), as everywhere in Leash's API:
/// `.json(body, delay: 0.5)`. On a `TestScheduler` they run in virtual time.
public struct StubResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The response headers.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data
    /// How long the answer takes, in seconds; `nil` for at once.
    public var delay: TimeInterval?
    /// A transport failure to answer with instead of a response.
    public var failure: URLError?
    /// For transfers (`transfer(_:)`): in how many steps the request's body is sent and
    /// the response's body received, each reported as progress.
    public var progressSteps: Int = 1
    /// For transfers and streams: the seconds between two progress steps or chunks.
    public var progressInterval: TimeInterval = 1
    /// For transfers: the connection drops after this many bytes of the body (the head
    /// and the bytes before arrive; then `URLError.networkConnectionLost`).
    public var dropsAfter: Int?
    /// For transfers: whether a request for `Range: bytes=N-` is answered `206 Partial
    /// Content` with the body's bytes from N (as a server that supports ranges does).
    public var acceptsRanges = false
    /// For streams: where each chunk of the body ends (offsets into `body`), as scripted
    /// by `chunks(_:every:)`; `nil` for `progressSteps` equal steps.
    public var chunkEnds: [Int]?
    /// For streams: whether the connection stays open after the last chunk (a live feed
    /// that ends only when disposed), instead of ending the body.
    public var keepsOpen = false
    /// Why the script itself is broken (a `json(encoding:)` value that did not encode):
    /// answered as that error, so that a test sees it rather than an empty body.
    var scriptError: LeashError?
    /// A `json(encoding:)` value given no encoder: encoded again, when answered, with the
    /// encoder of the manager the transport serves.
    var jsonValue: StubJSONValue?
    /// The last response head this answer made, shared by its copies: made again only for
    /// another URL, status or headers. On Linux, `HTTPURLResponse`'s initializer costs more
    /// than the whole pipeline's own work for a request, and a test answers the same stub
    /// many times.
    let madeHeads = StubResponseHeads()

    /// A response.
    public init(status: Int = 200, headers: HTTPHeaders = [:], body: Data = Data(), delay: TimeInterval? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.failure = nil
        self.scriptError = nil
    }

    /// A JSON body (`Content-Type: application/json`).
    public static func json(_ body: String, status: Int = 200, delay: TimeInterval? = nil) -> StubResponse {
        StubResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8), delay: delay)
    }

    /// A JSON body encoded from `value`, with `encoder`, or when none is given with the
    /// JSON encoder of the manager built with the transport (its key and date strategies:
    /// a snake_case app's stubs come out in snake_case), else a plain `JSONEncoder`. A
    /// value that does not encode makes every answer of this response fail with
    /// `LeashError.encoding` (keeping the encoder's error).
    ///
    /// ```swift
    /// let transport = StubTransport()
    ///     .stub(.get, path: "/users/1", .json(encoding: User(id: 1, firstName: "Ada")))
    /// let manager = try Manager.Builder()
    ///     .url("https://api.example.com")
    ///     .jsonEncoder { $0.keyEncodingStrategy = .convertToSnakeCase }
    ///     .jsonDecoder { $0.keyDecodingStrategy = .convertFromSnakeCase }
    ///     .transport(transport)
    ///     .build()  // the stub now answers {"id":1,"first_name":"Ada"}
    /// ```
    public static func json<Value: Encodable>(
        encoding value: Value, status: Int = 200, encoder: JSONEncoder? = nil, delay: TimeInterval? = nil
    ) -> StubResponse {
        var response = StubResponse(status: status, headers: ["Content-Type": "application/json"], delay: delay)
        let json = StubJSONValue(value)
        if encoder == nil { response.jsonValue = json }
        response.setJSONBody(json.encode(with: encoder ?? JSONEncoder()), of: json)
        return response
    }

    /// This response, with a `json(encoding:)` body given no encoder encoded by `encoder`
    /// (the manager's), if there is one.
    func encodingJSON(with encoder: JSONEncoder?) -> StubResponse {
        guard let encoder, let jsonValue else { return self }
        var response = self
        response.setJSONBody(jsonValue.encode(with: encoder), of: jsonValue)
        return response
    }

    private mutating func setJSONBody(_ encoded: Result<Data, Error>, of json: StubJSONValue) {
        switch encoded {
        case .success(let data):
            body = data
            scriptError = nil
        case .failure(let error):
            body = Data()
            scriptError = .encoding(
                reason: "the stub's \(json.typeName) body could not be encoded to JSON",
                underlying: error)
        }
    }

    /// A text body.
    public static func text(_ body: String, status: Int = 200, delay: TimeInterval? = nil) -> StubResponse {
        StubResponse(status: status, headers: ["Content-Type": "text/plain"], body: Data(body.utf8), delay: delay)
    }

    /// A status with an empty body.
    public static func status(_ code: Int, delay: TimeInterval? = nil) -> StubResponse {
        StubResponse(status: code, delay: delay)
    }

    /// `204 No Content`.
    public static func empty(delay: TimeInterval? = nil) -> StubResponse {
        StubResponse(status: 204, delay: delay)
    }

    /// A transport failure (`URLError`), such as `.notConnectedToInternet`.
    public static func error(_ code: URLError.Code, delay: TimeInterval? = nil) -> StubResponse {
        var response = StubResponse(delay: delay)
        response.failure = URLError(code)
        return response
    }

    /// The same answer, sent and received by a transfer in `steps` progress steps
    /// `interval` seconds apart (in virtual time on a `TestScheduler`).
    public func progress(steps: Int, every interval: TimeInterval = 1) -> StubResponse {
        var copy = self
        copy.progressSteps = max(1, steps)
        copy.progressInterval = interval
        return copy
    }

    /// The same answer, whose connection drops after `bytes` bytes of the body.
    public func dropping(after bytes: Int) -> StubResponse {
        var copy = self
        copy.dropsAfter = max(0, bytes)
        return copy
    }

    /// The same answer, honouring `Range: bytes=N-` with `206 Partial Content`.
    public func acceptingRanges() -> StubResponse {
        var copy = self
        copy.acceptsRanges = true
        return copy
    }

    /// A streamed body: `chunks` one after another, `interval` seconds apart (in virtual time on a
    /// `TestScheduler`), the first with the head. A stream execution (`client.rx.stream`,
    /// `lines`, `serverSentEvents`) gets each chunk as it comes; any other gets the whole
    /// body at the end.
    public static func chunks(
        _ chunks: [Data], every interval: TimeInterval = 1, status: Int = 200,
        headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]
    ) -> StubResponse {
        var response = StubResponse(status: status, headers: headers, body: chunks.reduce(Data(), +))
        var end = 0
        response.chunkEnds = chunks.map { chunk in
            end += chunk.count
            return end
        }
        response.progressInterval = interval
        response.progressSteps = max(1, chunks.count)
        return response
    }

    /// A streamed text body: `chunks` as UTF-8, one after another, `interval` apart.
    public static func chunks(
        _ chunks: [String], every interval: TimeInterval = 1, status: Int = 200,
        contentType: String = "text/plain; charset=utf-8"
    ) -> StubResponse {
        .chunks(chunks.map { Data($0.utf8) }, every: interval, status: status, headers: ["Content-Type": contentType])
    }

    /// A newline-delimited JSON stream (`application/x-ndjson`): one line per value, one
    /// chunk per line, `interval` apart. A value that does not encode makes every answer
    /// of this response fail with `LeashError.encoding`.
    public static func lines<Value: Encodable>(
        _ values: [Value], every interval: TimeInterval = 1, encoder: JSONEncoder = JSONEncoder()
    ) -> StubResponse {
        do {
            let lines = try values.map { try encoder.encode($0) + Data("\n".utf8) }
            return .chunks(lines, every: interval, headers: ["Content-Type": "application/x-ndjson"])
        } catch {
            var response = StubResponse()
            response.scriptError = .encoding(
                reason: "a stub's \(Value.self) line could not be encoded to JSON", underlying: error)
            return response
        }
    }

    /// A Server-Sent Events stream (`text/event-stream`): one chunk per event, `interval`
    /// apart, the first with `retry: <milliseconds>` if given.
    public static func serverSentEvents(
        _ events: [ServerSentEvent], every interval: TimeInterval = 1, retry milliseconds: Int? = nil
    ) -> StubResponse {
        var events = events
        if let milliseconds, !events.isEmpty { events[0].retry = milliseconds }
        return .chunks(events.map(\.wireFormat), every: interval, contentType: "text/event-stream")
    }

    /// The same stream, left open after its last chunk: it ends only when disposed (or
    /// by a timeout), as a live feed does.
    public func keepingOpen() -> StubResponse {
        var copy = self
        copy.keepsOpen = true
        return copy
    }

    /// Where each chunk of a body of `count` bytes ends: the scripted chunks, or
    /// `progressSteps` equal steps.
    func chunkEnds(forBodyOf count: Int) -> [Int] {
        if let chunkEnds { return chunkEnds.map { min($0, count) } }
        return (1...max(1, progressSteps)).map { step in count * step / max(1, progressSteps) }
    }

    /// The same answer after `seconds`.
    public func delayed(_ seconds: TimeInterval) -> StubResponse {
        var copy = self
        copy.delay = seconds
        return copy
    }

    func makeOutcome(for request: URLRequest) -> Result<TransportResponse, LeashError> {
        if let scriptError { return .failure(scriptError) }
        if let failure {
            return .failure(URLSessionTransport.leashError(for: failure))
        }
        guard let url = request.url, let response = madeHeads.head(url: url, status: status, headers: headers) else {
            return .failure(.invalidResponse(reason: "the stub's status \(status) cannot form a response"))
        }
        let body = request.httpMethod == "HEAD" ? Data() : body
        return .success(TransportResponse(httpResponse: response, data: body))
    }
}

/// The last `HTTPURLResponse` a `StubResponse` made (an immutable object, so handing the same
/// one to several requests for the same URL is safe).
final class StubResponseHeads: Sendable {
    private struct Made {
        let url: URL
        let status: Int
        let headers: HTTPHeaders
        let response: HTTPURLResponse
    }

    private let last = LockedState<Made?>(nil)

    /// The head for `url` with `status` and `headers`: the last one if it was for the same,
    /// else a new one (nil if Foundation refuses the status).
    func head(url: URL, status: Int, headers: HTTPHeaders) -> HTTPURLResponse? {
        if let made = last.withLock({ $0 }), made.url == url, made.status == status, made.headers == headers {
            return made.response
        }
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
        else { return nil }
        last.withLock { $0 = Made(url: url, status: status, headers: headers, response: response) }
        return response
    }
}

/// A value of a `StubResponse.json(encoding:)` answer, kept to be encoded again with the
/// manager's encoder.
struct StubJSONValue: @unchecked Sendable {
    // @unchecked: the value is only read, to be encoded; tests script it before any
    // request and do not change it.
    private let encodeValue: (JSONEncoder) throws -> Data
    /// The value's type, for errors.
    let typeName: String

    init<Value: Encodable>(_ value: Value) {
        encodeValue = { try $0.encode(value) }
        typeName = "\(Value.self)"
    }

    func encode(with encoder: JSONEncoder) -> Result<Data, Error> {
        Result { try encodeValue(encoder) }
    }
}
