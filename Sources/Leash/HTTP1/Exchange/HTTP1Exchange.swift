import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request through an `HTTP1Transport`, from the lease of a connection to the response's
/// end: it writes the head and the body, reads the response as it comes, and reports to its
/// output. Nothing is sent before `launch()`; disposing it stops everything (the connection
/// is closed, never reused, and nothing more is reported).
///
/// The request is sent once. Only a request that never left (a kept-alive connection that
/// failed on the first write, with no byte of it written) is sent again, once, on a new
/// connection; a request of which any byte was written ends with an error if the connection
/// fails, and only the pipeline's retry rules may send it again.
///
/// Threads: `launch()` and `dispose()` come from anywhere; the connection's completions come
/// one at a time (its stream runs them on one serial queue), and everything about the
/// response (`parser`, `decoder`, `sink`) is touched only there. What both sides decide (the
/// phase, whether the body may go, the end) is behind `state`'s lock.
final class HTTP1Exchange: PreparedRequest, @unchecked Sendable {
    // @unchecked: the response's reading state is touched only by the connection's
    // completions, one at a time; the rest is immutable or behind `state`.

    /// What the exchange knows before it starts.
    struct Plan: @unchecked Sendable {
        // @unchecked: immutable; a body stream is read only by the exchange, one piece at a
        // time.
        let url: URL
        let method: String
        let target: HTTP1Target
        let route: HTTP1Route
        let head: HTTP1RequestHead
        let body: HTTP1RequestBody
        let headerBytes: Int64
        /// The request as the pipeline gave it, and the file its body comes from, for
        /// planning it again with a credential (see `CredentialHandling`).
        let request: URLRequest
        let file: URL?
    }

    /// Plans a request (the transport's planning, for a request sent again with a credential).
    typealias Planner = @Sendable (_ request: URLRequest, _ file: URL?) -> Result<Plan, LeashError>

    private enum Phase {
        /// Prepared, not launched.
        case prepared
        /// Waiting for a connection.
        case leasing
        /// Writing the request and reading the response.
        case exchanging
        /// Reported its end, or disposed: nothing more happens.
        case ended
    }

    /// When the body may go, for a head that asked for `100 Continue`.
    private enum BodyGate {
        /// Not yet: the server has not answered and the wait is not over.
        case waiting
        /// The body is being sent (or was).
        case open
        /// Never: the final response came first.
        case closed
    }

    private struct State {
        var phase = Phase.prepared
        var lease: Disposable?
        var connection: HTTP1Connection?
        var place: DispatcherPlace?
        var bodyGate = BodyGate.waiting
        /// Whether every byte of the body was written.
        var bodySent = false
        /// Whether the request was already sent again on a new connection.
        var retried = false
    }

    private let plan: Result<Plan, LeashError>
    private let pool: HTTP1ConnectionPool
    private let cookies: HTTP1Cookies?
    private let output: any HTTP1Output
    private let sink: HTTP1ResponseSink
    private let limits: HTTP1ParserLimits
    private let state: LockedState<State>
    /// How long a head that asked for `100 Continue` waits before sending the body anyway.
    private let continueTimeout: DispatchTimeInterval
    /// How a 401 or 407 is answered, and how the request is planned again to answer it.
    private let credentials: CredentialHandling
    private let planner: Planner?
    /// Whether the pool's limits hold the request back (one made on the transport itself);
    /// the pipeline's requests are governed by their manager's dispatcher instead.
    private let limited: Bool
    /// A stream's pacing by its subscriber; nil for other destinations.
    private let pacer: HTTP1StreamPacer?

    var streamPacing: StreamPacing? { pacer }

    // The response's reading state: the connection's completions only.
    private var parser: HTTP1ResponseParser
    private var decoder: HTTP1ContentDecoder?
    private var keepsConnection = false
    private var receivedAnyByte = false
    /// The request with a credential, when the response is a challenge being answered: its
    /// body is read and dropped, and this goes instead.
    private var answer: Plan?
    /// Whether a challenge was answered already (a second one is the response).
    private var answeredChallenge = false
    private var timing = Timing()

    /// When each phase happened, for `TransportMetrics`.
    private struct Timing {
        var fetchStart = Date()
        var requestStart: Date?
        var responseStart: Date?
        var bodyBytesSent: Int64 = 0
    }

    init(
        plan: Result<Plan, LeashError>, pool: HTTP1ConnectionPool, cookies: HTTP1Cookies?, output: any HTTP1Output,
        sink: HTTP1ResponseSink, limits: HTTP1ParserLimits, place: DispatcherPlace?,
        continueTimeout: DispatchTimeInterval = .seconds(1), credentials: CredentialHandling = .none,
        planner: Planner? = nil, limited: Bool = true, slowSubscribers: SlowSubscriberPolicy = .holdBack
    ) {
        self.credentials = credentials
        self.planner = planner
        self.plan = plan
        self.pool = pool
        self.cookies = cookies
        self.output = output
        self.sink = sink
        self.limits = limits
        self.continueTimeout = continueTimeout
        parser = HTTP1ResponseParser(requestMethod: (try? plan.get().method) ?? "GET", limits: limits)
        state = LockedState(State(place: place))
        self.limited = limited
        pacer = sink.isStreamDestination ? HTTP1StreamPacer(policy: slowSubscribers) : nil
        pacer?.whenStuck { [weak self] waiting in self?.overflowed(waiting) }
    }

    // MARK: Start and stop

    func launch() {
        let plan: Plan
        switch self.plan {
        case .success(let ready):
            plan = ready
        case .failure(let error):
            return end(.failure(error))
        }
        let go = state.withLock { state -> Bool in
            guard state.phase == .prepared else { return false }
            state.phase = .leasing
            return true
        }
        guard go else { return }
        lease(plan, fresh: false)
    }

    /// Leases a connection for the request (a new one, when `fresh`).
    private func lease(_ plan: Plan, fresh: Bool) {
        timing.fetchStart = Date()
        let lease = pool.lease(plan.route, fresh: fresh, limited: limited) { [self] result in
            switch result {
            case .success(let connection): start(plan, on: connection)
            case .failure(let error): end(.failure(.transport(error)))
            }
        }
        let kept = state.withLock { state -> Bool in
            guard state.phase == .leasing else { return false }
            state.lease = lease
            return true
        }
        if !kept { lease.dispose() }
    }

    func dispose() {
        let (ended, lease, connection, place) = state.withLock {
            state -> (Bool, Disposable?, HTTP1Connection?, DispatcherPlace?) in
            guard state.phase != .ended else { return (false, nil, nil, nil) }
            state.phase = .ended
            defer {
                state.lease = nil
                state.connection = nil
                state.place = nil
            }
            return (true, state.lease, state.connection, state.place)
        }
        guard ended else { return }
        pacer?.close()
        lease?.dispose()
        if let connection { pool.giveBack(connection, reusable: false) }
        place?.release()
        output.release()
    }

    // MARK: Writing

    /// A connection was lent: the request goes.
    private func start(_ plan: Plan, on connection: HTTP1Connection) {
        let go = state.withLock { state -> Bool in
            guard state.phase == .leasing else { return false }
            state.phase = .exchanging
            state.lease = nil
            state.connection = connection
            state.bodyGate = plan.head.expectsContinue ? .waiting : .open
            return true
        }
        guard go else {
            // Disposed while the connection was on its way: unused, it can be kept.
            return pool.giveBack(connection, reusable: true)
        }
        parser = HTTP1ResponseParser(requestMethod: plan.method, limits: limits)
        keepsConnection = false
        receivedAnyByte = false
        timing.requestStart = Date()
        // A small body goes in the head's write: one write, one segment.
        var first = plan.head.bytes
        let bodyInHead: Bool
        if !plan.head.expectsContinue, case .data(let data) = plan.body, data.count <= 64 * 1024 {
            first.append(data)
            bodyInHead = true
        } else {
            bodyInHead = false
        }
        connection.stream.send(
            first,
            reportingWritten: { [self] written, error in
                if let error {
                    return writeFailed(plan, connection, error, nothingWritten: written == 0)
                }
                if bodyInHead {
                    bodyWritten(Int64(plan.body.length ?? 0), of: plan.body.length)
                    finishBody(connection)
                } else if plan.head.expectsContinue {
                    waitForContinue(plan, connection)
                } else {
                    sendBody(plan, connection)
                }
            })
        receive(on: connection)
    }

    /// The first write failed: on a kept-alive connection with nothing written, the request
    /// goes again on a new connection, once; else the exchange fails.
    private func writeFailed(_ plan: Plan, _ connection: HTTP1Connection, _ error: URLError, nothingWritten: Bool) {
        let retry = state.withLock { state -> Bool in
            guard state.phase == .exchanging, state.connection === connection else { return false }
            guard connection.isReused, nothingWritten, !state.retried else {
                return false
            }
            state.retried = true
            state.phase = .leasing
            state.connection = nil
            return true
        }
        guard retry else {
            return fail(connection, .transport(error))
        }
        pool.giveBack(connection, reusable: false)
        lease(plan, fresh: true)
    }

    /// Waits for `100 Continue` (or the final response, or the timeout) before the body.
    private func waitForContinue(_ plan: Plan, _ connection: HTTP1Connection) {
        DispatchQueue.global().asyncAfter(deadline: .now() + continueTimeout) { [weak self] in
            self?.openBodyGate(plan, connection)
        }
    }

    /// The body may go now (a `100 Continue`, or the wait is over), unless it is already
    /// going or the final response came first.
    private func openBodyGate(_ plan: Plan, _ connection: HTTP1Connection) {
        let open = state.withLock { state -> Bool in
            guard state.phase == .exchanging, state.connection === connection, state.bodyGate == .waiting else {
                return false
            }
            state.bodyGate = .open
            return true
        }
        if open { sendBody(plan, connection) }
    }

    /// Sends the body, piece by piece.
    private func sendBody(_ plan: Plan, _ connection: HTTP1Connection) {
        switch plan.body {
        case .none:
            finishBody(connection)
        case .data(let data):
            connection.stream.send(data) { [self] error in
                if let error { return fail(connection, .transport(error)) }
                bodyWritten(Int64(data.count), of: Int64(data.count))
                finishBody(connection)
            }
        case .file(let url, let size):
            do {
                let reader = try HTTP1BodyReader(file: url, size: size)
                sendPieces(of: reader, connection)
            } catch {
                fail(connection, error)
            }
        case .stream(let stream, let length):
            sendPieces(of: HTTP1BodyReader(stream: stream, length: length), connection)
        }
    }

    /// Sends `reader`'s next piece, then the one after, until the body ends.
    private func sendPieces(of reader: HTTP1BodyReader, _ connection: HTTP1Connection) {
        guard mayGoOnSending(connection) else { return reader.close() }
        let piece: HTTP1BodyReader.Piece
        do {
            piece = try reader.next()
        } catch {
            reader.close()
            return fail(connection, error)
        }
        switch piece {
        case .end(let trailer):
            reader.close()
            guard let trailer else { return finishBody(connection) }
            connection.stream.send(trailer) { [self] error in
                if let error { return fail(connection, .transport(error)) }
                finishBody(connection)
            }
        case .bytes(let wire, let bodyBytes):
            connection.stream.send(wire) { [self] error in
                if let error {
                    reader.close()
                    return fail(connection, .transport(error))
                }
                bodyWritten(bodyBytes, of: reader.length)
                sendPieces(of: reader, connection)
            }
        }
    }

    /// Whether the body should still be sent on `connection`.
    private func mayGoOnSending(_ connection: HTTP1Connection) -> Bool {
        state.withLock { $0.phase == .exchanging && $0.connection === connection && $0.bodyGate == .open }
    }

    /// `count` more bytes of the body were written: the upload's progress.
    private func bodyWritten(_ count: Int64, of expected: Int64?) {
        timing.bodyBytesSent += count
        guard count > 0, sink.head == nil, sink.reportsProgress else { return }
        output.emit(.uploadProgress(TransferProgress(completedBytes: timing.bodyBytesSent, expectedBytes: expected)))
    }

    /// Every byte of the request is written.
    private func finishBody(_ connection: HTTP1Connection) {
        state.withLock { state in
            if state.connection === connection { state.bodySent = true }
        }
    }

    // MARK: Reading

    /// Reads the next bytes of the response.
    private func receive(on connection: HTTP1Connection) {
        connection.stream.receive(maximumLength: 64 * 1024) { [self] read in
            switch read {
            case .bytes(let bytes):
                if timing.responseStart == nil { timing.responseStart = Date() }
                receivedAnyByte = true
                handle(bytes, on: connection)
            case .end:
                handleEnd(on: connection)
            case .failed(let error):
                guard isCurrent(connection) else { return }
                fail(connection, receivedAnyByte ? .transport(error) : Self.lostBeforeAnswer(error))
            }
        }
    }

    /// Whether `connection` still carries this exchange.
    private func isCurrent(_ connection: HTTP1Connection) -> Bool {
        state.withLock { $0.phase == .exchanging && $0.connection === connection }
    }

    private func handle(_ bytes: Data, on connection: HTTP1Connection) {
        guard isCurrent(connection) else { return }
        do {
            let events = try parser.parse(bytes)
            if try consume(events, on: connection) { return }
        } catch {
            return fail(connection, HTTP1Errors.leashError(for: error))
        }
        // A subscriber that keeps too much waiting holds the next read back.
        if let pacer, pacer.holdsBack(resume: { [self] in receive(on: connection) }) { return }
        receive(on: connection)
    }

    /// The subscriber took nothing for the longest hold: the stream ends.
    private func overflowed(_ waiting: Int) {
        guard let connection = state.withLock({ $0.connection }) else { return }
        fail(connection, .streamOverflow(bufferedBytes: waiting))
    }

    private func handleEnd(on connection: HTTP1Connection) {
        guard isCurrent(connection) else { return }
        guard receivedAnyByte else {
            return fail(connection, Self.lostBeforeAnswer(URLError(.networkConnectionLost)))
        }
        do {
            let events = try parser.finish()
            if try consume(events, on: connection) { return }
            fail(connection, HTTP1Errors.leashError(for: HTTP1ResponseError.closedBeforeHead))
        } catch {
            fail(connection, HTTP1Errors.leashError(for: error))
        }
    }

    /// Acts on the parser's events; returns true once the response ended (reported).
    private func consume(_ events: [HTTP1ParserEvent], on connection: HTTP1Connection) throws -> Bool {
        for event in events {
            switch event {
            case .interim(let interim):
                if interim.statusCode == 100, case .success(let plan) = plan { openBodyGate(plan, connection) }
            case .head(let head, let framing, let keeps):
                keepsConnection = keeps
                try received(head, framing: framing, on: connection)
            case .body(let bytes):
                if answer != nil { continue }
                let decoded = try decoder.map { decoder throws(HTTP1ContentDecodingError) in try decoder.decode(bytes) }
                if try sink.received(body: decoded ?? bytes) == .enough {
                    keepsConnection = false
                    try complete(on: connection)
                    return true
                }
            case .end:
                if let answer {
                    sendAgain(answer, from: connection)
                    return true
                }
                if let decoder {
                    let rest = try decoder.finish()
                    if !rest.isEmpty { _ = try sink.received(body: rest) }
                }
                try complete(on: connection)
                return true
            }
        }
        return false
    }

    /// The final head arrived.
    private func received(_ head: HTTP1ResponseHead, framing: HTTP1BodyFraming, on connection: HTTP1Connection) throws {
        guard case .success(let plan) = plan else { return }
        // The final response came before the body was asked for: it never goes.
        state.withLock { state in
            if state.bodyGate == .waiting { state.bodyGate = .closed }
        }
        cookies?.store(head, from: plan.url)
        if let answered = challengeAnswer(to: head, plan) {
            // The challenge's body is read and dropped; the request goes again after it.
            answer = answered
            answeredChallenge = true
            decoder = nil
            return
        }
        let response = try HTTP1Response.urlResponse(head, url: plan.url)
        decoder = nil
        var decodedLength: Int64?
        if let coding = head.value("Content-Encoding"), !HTTP1Response.hasNoBody(head, method: plan.method) {
            // A coding Leash cannot undo is handed on as it came (as URLSession does).
            decoder = try? HTTP1ContentDecoder.make(contentEncoding: coding)
        }
        if decoder == nil {
            switch framing {
            case .length(let length): decodedLength = length
            case .none: decodedLength = 0
            case .chunked, .untilClose: break
            }
        }
        try sink.received(head: response, decodedLength: decodedLength)
    }

    /// The response ended: the connection goes back to the pool if it can carry another
    /// request, and the answer goes out.
    private func complete(on connection: HTTP1Connection) throws {
        guard case .success(let plan) = plan else { return }
        let metrics = makeMetrics(plan, connection)
        let response = try sink.complete(metrics: metrics)
        let (ended, place, bodySent) = state.withLock { state -> (Bool, DispatcherPlace?, Bool) in
            guard state.phase == .exchanging, state.connection === connection else { return (false, nil, false) }
            state.phase = .ended
            state.connection = nil
            defer { state.place = nil }
            return (true, state.place, state.bodySent)
        }
        guard ended else { return }
        let reusable = keepsConnection && bodySent && parser.excessBytes == 0
        // The connection is back in the pool before the answer goes out and before the
        // manager's place is given back: the next request (made once the subscriber heard, or
        // let through by the place) takes it rather than opening another. A request made in
        // the answer's own callback, when it runs here (a transfer's, on this connection's
        // queue) and may wait, is never lent it. The place goes back in place, not with a
        // hop: nothing waits for this queue, so the request it lets through may start at once
        // (a hop per request cost about a third of the throughput with 64 in flight).
        pool.giveBack(connection, reusable: reusable)
        connection.reportingInPlace { output.finish(.success(response)) }
        place?.release(hop: false)
    }

    // MARK: Challenges

    /// The request planned again with a credential, if `head` is a challenge the request's
    /// `CredentialHandling` answers: a `Basic` one (the only scheme answered here), once,
    /// for a body that can be sent again (not a stream's).
    private func challengeAnswer(to head: HTTP1ResponseHead, _ plan: Plan) -> Plan? {
        guard !answeredChallenge, let planner, head.statusCode == 401 || head.statusCode == 407 else { return nil }
        if case .stream = plan.body { return nil }
        let isProxy = head.statusCode == 407
        let challenges = head.values(isProxy ? "Proxy-Authenticate" : "WWW-Authenticate")
        guard let basic = challenges.first(where: { $0.lowercased().hasPrefix("basic") }) else { return nil }
        let credential: URLCredential?
        switch credentials.kind {
        case .none:
            credential = nil
        case .credential(let box):
            credential = box.credential
        case .urlSession:
            let space = URLProtectionSpace(
                host: plan.target.host, port: plan.target.port, protocol: plan.target.scheme,
                realm: HTTP1Challenge.realm(of: basic), authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
            credential = URLCredentialStorage.shared.defaultCredential(for: space)
        }
        guard let credential, let user = credential.user else { return nil }
        let token = Data((user + ":" + (credential.password ?? "")).utf8).base64EncodedString()
        var request = plan.request
        request.setValue("Basic " + token, forHTTPHeaderField: isProxy ? "Proxy-Authorization" : "Authorization")
        return try? planner(request, plan.file).get()
    }

    /// The challenge's response ended: its connection goes back, and the request goes again
    /// with the credential.
    private func sendAgain(_ answered: Plan, from connection: HTTP1Connection) {
        let (again, bodySent) = state.withLock { state -> (Bool, Bool) in
            guard state.phase == .exchanging, state.connection === connection else { return (false, false) }
            state.phase = .leasing
            state.connection = nil
            return (true, state.bodySent)
        }
        guard again else { return }
        pool.giveBack(connection, reusable: keepsConnection && bodySent && parser.excessBytes == 0)
        answer = nil
        lease(answered, fresh: false)
    }

    // MARK: Ends

    /// The exchange failed on `connection`: closed, never reused.
    private func fail(_ connection: HTTP1Connection, _ error: LeashError) {
        let (ended, place) = state.withLock { state -> (Bool, DispatcherPlace?) in
            guard state.phase == .exchanging, state.connection === connection else { return (false, nil) }
            state.phase = .ended
            state.connection = nil
            defer { state.place = nil }
            return (true, state.place)
        }
        guard ended else { return }
        pacer?.close()
        sink.abandon()
        pool.giveBack(connection, reusable: false)
        place?.release()
        output.finish(.failure(error))
    }

    /// Ends the exchange without a connection (it could not be prepared or connected).
    private func end(_ result: Result<TransportResponse, LeashError>) {
        let (ended, place) = state.withLock { state -> (Bool, DispatcherPlace?) in
            guard state.phase != .ended else { return (false, nil) }
            state.phase = .ended
            state.lease = nil
            defer { state.place = nil }
            return (true, state.place)
        }
        guard ended else { return }
        place?.release()
        output.finish(result)
    }

    /// The error of a connection that ended after the request was written and before any
    /// byte of an answer: the request is not sent again, since the server may have acted on it.
    static func lostBeforeAnswer(_ error: URLError) -> LeashError {
        var userInfo = error.userInfo
        userInfo[NSLocalizedDescriptionKey] =
            "The connection closed after the request was sent and before any answer; "
            + "the request was not sent again, since the server may have acted on it"
        userInfo[NSUnderlyingErrorKey] = error
        return .transport(URLError(.networkConnectionLost, userInfo: userInfo))
    }

    /// What was measured, as `TransportMetrics`.
    private func makeMetrics(_ plan: Plan, _ connection: HTTP1Connection) -> TransportMetrics {
        let end = Date()
        let transaction = TransportMetrics.Transaction(
            fetchStart: timing.fetchStart, domainLookupStart: nil, domainLookupEnd: nil,
            connectStart: connection.connectInterval?.start, connectEnd: connection.connectInterval?.end,
            secureConnectionStart: plan.target.isSecure ? connection.connectInterval?.start : nil,
            secureConnectionEnd: plan.target.isSecure ? connection.connectInterval?.end : nil,
            requestStart: timing.requestStart, responseStart: timing.responseStart, responseEnd: end,
            networkProtocol: "http/1.1", isReusedConnection: connection.isReused, isFromCache: false,
            requestHeaderBytes: plan.headerBytes, requestBodyBytes: timing.bodyBytesSent,
            responseHeaderBytes: Int64(parser.headBytes), responseBodyBytes: Int64(parser.bodyWireBytes))
        return TransportMetrics(
            taskInterval: DateInterval(start: timing.fetchStart, end: max(end, timing.fetchStart)), redirectCount: 0,
            transactions: [transaction])
    }
}
