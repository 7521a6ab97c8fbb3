import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport of a WebSocket's upgrade request: what the pipeline sends it through in
/// place of the manager's transport (`ExecutionKind.webSocket`).
///
/// Each attempt opens a connection, writes the request and reads the head that comes
/// back. A `101` that passes the handshake's checks answers the attempt with an empty body,
/// and the open connection waits here, `established`, for the WebSocket to `claim()` it once
/// the pipeline delivered the response (after the success interceptors and validation). Any
/// other status answers with its body, like any response, so that the failure interceptors
/// see it (a 401 goes to the token refresher, and the handshake is retried on a new
/// connection) and validation ends the execution with `unacceptableStatusCode`.
///
/// One per connect of a WebSocket: its attempts (retries, redirects) share it.
final class WebSocketUpgrade: Transport, Sendable {
    /// An upgraded connection, ready for frames.
    struct Established: Sendable {
        /// The connection.
        let stream: any WebSocketByteStream
        /// Bytes that arrived after the head: the start of the first frames.
        let leftover: Data
        /// What the server agreed to.
        let agreement: WebSocketHandshake.Agreement
        /// The server's `101`.
        let head: HTTPResponseHead
    }

    private struct State {
        var established: Established?
        var isDiscarded = false
    }

    /// Opens the connections.
    let connector: any WebSocketByteStreamConnector
    /// A PEM file of extra trusted authorities for `wss` (tests).
    let trustedAuthorities: URL?
    private let state = LockedState(State())

    /// The most body bytes kept from a response that is not an upgrade (a 401's JSON, an
    /// error page); the rest is not read.
    static let maximumRefusalBody = 1024 * 1024

    init(connector: any WebSocketByteStreamConnector, trustedAuthorities: URL? = nil) {
        self.connector = connector
        self.trustedAuthorities = trustedAuthorities
    }

    func send(_ request: URLRequest) -> Observable<TransportResponse> {
        Observable.create { [self] observer in
            let handshake = HandshakeConnection(upgrade: self, request: request, observer: observer)
            handshake.start()
            return handshake
        }
    }

    func transfer(_ request: TransportRequest) -> Observable<TransportEvent> {
        // Never asked: a WebSocket execution has no transfer (`ExecutionRecipe.makeTransfer`).
        .error(LeashError.invalidResponse(reason: "a WebSocket upgrade is not a transfer"))
    }

    /// Keeps `established` for `claim()`; a connection kept by an earlier attempt, or one
    /// arriving after `discard()`, is closed.
    fileprivate func establish(_ established: Established) {
        let (replaced, refused) = state.withLock { state -> (Established?, Bool) in
            if state.isDiscarded { return (nil, true) }
            defer { state.established = established }
            return (state.established, false)
        }
        replaced?.stream.close()
        if refused { established.stream.close() }
    }

    /// Takes the established connection: the WebSocket owns it from now on.
    func claim() -> Established? {
        state.withLock { state in
            defer { state.established = nil }
            return state.established
        }
    }

    /// The WebSocket gave up this connect (disposed, or the execution failed): a connection
    /// established and not claimed is closed, and so is any established later.
    func discard() {
        let established = state.withLock { state -> Established? in
            state.isDiscarded = true
            defer { state.established = nil }
            return state.established
        }
        established?.stream.close()
    }
}

/// One attempt's connection until it is upgraded or answered: connects, writes the
/// request, reads the head (and a refusal's body). Disposing closes the connection, unless
/// it was handed over.
private final class HandshakeConnection: Disposable, Sendable {
    private struct State {
        var connecting: Disposable?
        var stream: (any WebSocketByteStream)?
        var buffer = Data()
        var head: HTTPResponseHead?
        var headLength = 0
        var isDone = false
    }

    private let upgrade: WebSocketUpgrade
    private let request: URLRequest
    private let observer: AnyObserver<TransportResponse>
    private let state = LockedState(State())

    init(upgrade: WebSocketUpgrade, request: URLRequest, observer: AnyObserver<TransportResponse>) {
        self.upgrade = upgrade
        self.request = request
        self.observer = observer
    }

    func start() {
        let head: Data
        var address: WebSocketAddress
        do {
            head = try WebSocketHandshake.requestHead(for: request)
            address = try WebSocketHandshake.address(of: request.url ?? URL(fileURLWithPath: "/"))
        } catch {
            return fail(error)
        }
        address.additionalTrustedAuthorities = upgrade.trustedAuthorities
        let connecting = upgrade.connector.connect(to: address) { [self] result in
            switch result {
            case .failure(let error): fail(LeashError.transport(error))
            case .success(let stream): connected(stream, head: head)
            }
        }
        // Kept only while it is still connecting: the attempt holds this object until it
        // completes, so keeping a completed one (it may complete before `connect` returns)
        // would be a cycle.
        let keep = state.withLock { state -> Bool in
            guard !state.isDone, state.stream == nil else { return false }
            state.connecting = connecting
            return true
        }
        if !keep { connecting.dispose() }
    }

    private func connected(_ stream: any WebSocketByteStream, head: Data) {
        let keep = state.withLock { state -> Bool in
            guard !state.isDone else { return false }
            state.connecting = nil
            state.stream = stream
            return true
        }
        guard keep else { return stream.close() }
        stream.send(head) { [self] error in
            if let error { fail(LeashError.transport(error)) }
        }
        read(stream)
    }

    private func read(_ stream: any WebSocketByteStream) {
        stream.receive(maximumLength: 64 * 1024) { [self] result in
            switch result {
            case .bytes(let bytes): received(bytes, stream)
            case .end: ended(stream)
            case .failed(let error): fail(LeashError.transport(error))
            }
        }
    }

    private func received(_ bytes: Data, _ stream: any WebSocketByteStream) {
        enum Next {
            case stop, readMore
            case upgraded(HTTPResponseHead, Data)
            case refused(HTTPResponseHead, Data)
            case failed(LeashError)
        }
        let next = state.withLock { state -> Next in
            guard !state.isDone else { return .stop }
            state.buffer.append(bytes)
            if state.head == nil {
                do {
                    guard let (head, length) = try HTTPResponseHead.parse(state.buffer) else { return .readMore }
                    state.head = head
                    state.headLength = length
                } catch {
                    return .failed(error as? LeashError ?? .invalidResponse(reason: "\(error)"))
                }
            }
            guard let head = state.head else { return .readMore }
            let rest = state.buffer.dropFirst(state.headLength)
            if head.statusCode == 101 { return .upgraded(head, Data(rest)) }
            switch RefusalBody.length(of: head, received: rest) {
            case .complete(let body): return .refused(head, body)
            case .needMore:
                return rest.count > WebSocketUpgrade.maximumRefusalBody ? .refused(head, Data(rest)) : .readMore
            }
        }
        switch next {
        case .stop: return
        case .readMore: read(stream)
        case .failed(let error): fail(error)
        case .refused(let head, let body): answer(head, body: body)
        case .upgraded(let head, let leftover): upgraded(head, leftover: leftover, stream)
        }
    }

    /// The server closed before its answer was whole: a refusal delimited by the close is
    /// whole now; anything else is a failure.
    private func ended(_ stream: any WebSocketByteStream) {
        let (head, body) = state.withLock { state in (state.head, Data(state.buffer.dropFirst(state.headLength))) }
        guard let head, head.statusCode != 101 else {
            return fail(LeashError.transport(URLError(.networkConnectionLost)))
        }
        answer(head, body: body)
    }

    private func upgraded(_ head: HTTPResponseHead, leftover: Data, _ stream: any WebSocketByteStream) {
        switch WebSocketHandshake.check(head, request: request) {
        case .failure(let error):
            fail(error)
        case .success(let agreement):
            guard let url = request.url, let response = head.httpResponse(url: url) else {
                return fail(LeashError.invalidResponse(reason: "the 101 response could not be read"))
            }
            let handedOver = state.withLock { state -> Bool in
                guard !state.isDone else { return false }
                state.isDone = true
                (state.stream, state.connecting) = (nil, nil)
                return true
            }
            guard handedOver else { return }
            upgrade.establish(.init(stream: stream, leftover: leftover, agreement: agreement, head: head))
            observer.onNext(TransportResponse(httpResponse: response, data: Data()))
            observer.onCompleted()
        }
    }

    private func answer(_ head: HTTPResponseHead, body: Data) {
        guard let url = request.url, let response = head.httpResponse(url: url) else {
            return fail(LeashError.invalidResponse(reason: "the server's response could not be read"))
        }
        guard let stream = finish() else { return }
        stream?.close()
        observer.onNext(TransportResponse(httpResponse: response, data: body))
        observer.onCompleted()
    }

    private func fail(_ error: Swift.Error) {
        guard let stream = finish() else { return }
        stream?.close()
        observer.onError(error)
    }

    /// Ends the attempt once: returns the stream to close (itself optional), or `nil` if
    /// it had ended already.
    private func finish() -> (any WebSocketByteStream)?? {
        let ended = state.withLock { state -> (stream: (any WebSocketByteStream)?, connecting: Disposable?)? in
            guard !state.isDone else { return nil }
            state.isDone = true
            // Let go of both: the connect attempt holds this object until it is released.
            defer { (state.stream, state.connecting) = (nil, nil) }
            return (state.stream, state.connecting)
        }
        guard let ended else { return nil }
        ended.connecting?.dispose()
        return .some(ended.stream)
    }

    func dispose() {
        let ended = state.withLock { state -> (Disposable?, (any WebSocketByteStream)?) in
            guard !state.isDone else { return (nil, nil) }
            state.isDone = true
            defer { (state.connecting, state.stream) = (nil, nil) }
            return (state.connecting, state.stream)
        }
        ended.0?.dispose()
        ended.1?.close()
    }
}

/// How much of a refusal's body to read: by `Content-Length`, through the last chunk of a
/// chunked body, or (neither) until the server closes.
private enum RefusalBody {
    enum Length {
        case complete(Data)
        case needMore
    }

    static func length(of head: HTTPResponseHead, received rest: Data) -> Length {
        if head.value(for: "Transfer-Encoding")?.lowercased().contains("chunked") == true {
            return dechunked(rest).map(Length.complete) ?? .needMore
        }
        if let text = head.value(for: "Content-Length"), let length = Int(text), length >= 0 {
            if length > WebSocketUpgrade.maximumRefusalBody {
                return rest.count >= WebSocketUpgrade.maximumRefusalBody ? .complete(Data(rest)) : .needMore
            }
            return rest.count >= length ? .complete(Data(rest.prefix(length))) : .needMore
        }
        // 1xx, 204 and 304 have no body.
        if head.statusCode < 200 || head.statusCode == 204 || head.statusCode == 304 { return .complete(Data()) }
        return .needMore
    }

    /// The body of a complete chunked encoding, or `nil` while it is not complete.
    private static func dechunked(_ data: Data) -> Data? {
        var body = Data()
        var index = data.startIndex
        let lineEnd = Data("\r\n".utf8)
        while true {
            guard let end = data.range(of: lineEnd, in: index..<data.endIndex) else { return nil }
            let sizeText =
                String(decoding: data[index..<end.lowerBound], as: UTF8.self)
                .split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { return body }
            index = end.upperBound
            if size == 0 { return body }
            guard data.distance(from: index, to: data.endIndex) >= size + 2 else { return nil }
            let chunkEnd = data.index(index, offsetBy: size)
            body.append(data[index..<chunkEnd])
            index = data.index(chunkEnd, offsetBy: 2)
        }
    }
}
