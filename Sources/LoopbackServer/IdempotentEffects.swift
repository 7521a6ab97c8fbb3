import Foundation

/// The server side of a deduplicating write endpoint, as the IETF httpapi draft
/// "The Idempotency-Key HTTP Header Field" describes it, with a log of the effects it
/// performed and faults a test can inject.
///
/// ```swift
/// let effects = server.idempotentRoute(path: "/orders/*")
/// effects.failNext(1, status: 503, headers: ["Retry-After": "2"])
/// // … the client under test sends its writes, each with an `Idempotency-Key` …
/// XCTAssertEqual(effects.effectCount(forKey: key), 1)
/// ```
///
/// Every method is treated alike. In order, a request gets:
/// 1. the next scripted failure, if any (`failNext(_:status:headers:)`), with no effect;
/// 2. a 401 with no effect if `requiredHeader` is set and the request lacks it;
/// 3. without a key: an effect, answered `201 {"effect":n,"replayed":false}`, n being its
///    `Effect.sequence`;
/// 4. with a key never seen: the same, and the key remembers the request and the answer;
/// 5. with a key whose first request is still being processed: a 409, no effect;
/// 6. with a key seen with the same method, target and body: the stored answer again,
///    `{"effect":n,"replayed":true}` with `Idempotent-Replayed: true`, no effect;
/// 7. with a key seen with another method, target or body: a 422
///    `{"error":"idempotency key reused with another request"}`, no effect.
///
/// A key is an opaque string compared exactly as received (`"abc"` with its quotes, as a
/// structured-field string is sent, differs from `abc`). Every answer closes its connection
/// unless `closesConnections` is false (see it). Every property may be read or set from any thread at any
/// time; a change applies from the next request on.
package final class IdempotentEffects: Sendable {
    /// One effect the route performed, as the request that caused it was received.
    package struct Effect: Sendable, Equatable {
        /// The idempotency key as received, or nil when the request had none.
        package var key: String?
        /// The method as sent.
        package var method: String
        /// The request target: the path and query as sent, still percent-encoded.
        package var path: String
        /// The body as received (de-chunked).
        package var body: Data
        /// The effect's place in the log, from 1.
        package var sequence: Int
        /// The header fields with lower-cased names; repeated fields joined with ", ".
        package var headers: [String: String]
        /// Whether the connection was closed instead of answering (`dropResponseProbability`).
        package var responseDropped: Bool

        /// Creates an effect record (the route does; tests may compare with one).
        package init(
            key: String?, method: String, path: String, body: Data, sequence: Int, headers: [String: String],
            responseDropped: Bool = false
        ) {
            self.key = key
            self.method = method
            self.path = path
            self.body = body
            self.sequence = sequence
            self.headers = headers
            self.responseDropped = responseDropped
        }
    }

    /// What a key remembers: the request that first used it, and its effect once performed.
    private struct KeyRecord: Sendable {
        var method: String
        var target: String
        var body: Data
        /// The effect's sequence; nil while the first request is being processed.
        var effect: Int?

        func matches(_ request: LoopbackRequest) -> Bool {
            method == request.method && target == request.target && body == request.body
        }
    }

    private struct ScriptedFailure: Sendable {
        var remaining: Int
        var status: Int
        var headers: [String: String]
    }

    private struct State: Sendable {
        var keyHeaderName = "Idempotency-Key"
        var dropResponseProbability = 0.0
        var requiredHeader: (name: String, value: String)?
        var holdsEffects = false
        var closesConnections = true
        let seed: UInt64
        var random: SplitMix64
        var effects: [Effect] = []
        var keys: [String: KeyRecord] = [:]
        var failures: [ScriptedFailure] = []
        var requestCount = 0
        var heldCount = 0
    }

    /// What a request gets, decided under the lock.
    private enum Decision {
        case answer(LoopbackResponse)
        case perform(key: String?, held: Bool)
    }

    private let state: ServerLock<State>

    /// Creates a recorder whose lost answers (`dropResponseProbability`) follow `seed`: the
    /// same seed and the same requests drop the same answers, run after run.
    package init(seed: UInt64 = 0) {
        state = ServerLock(State(seed: seed, random: SplitMix64(seed: seed)))
    }

    /// A route answering `method` (nil: any) on `path` for this recorder; see
    /// `LoopbackServer.idempotentRoute(method:path:seed:)` to create and install one at once.
    package func route(method: String? = nil, path: String) -> LoopbackServer.Route {
        LoopbackServer.Route(method: method, path: path) { [self] request in respond(to: request) }
    }

    // MARK: - Configuration

    /// The header field carrying the key, matched case-insensitively; `Idempotency-Key` by default.
    package var keyHeaderName: String {
        get { state.withLock { $0.keyHeaderName } }
        set { state.withLock { $0.keyHeaderName = newValue } }
    }

    /// The chance, 0…1, that a request performing an effect gets no answer: the effect is
    /// recorded and its key remembers the answer, then the connection closes with nothing
    /// written, as when a response is lost on the way. Drawn from the seeded generator once
    /// per effect while above 0; replays and refusals are always answered.
    ///
    /// So that the client sees the loss at once, every answer of the route closes its
    /// connection unless `closesConnections` is false: keep the route's connections for the
    /// route alone.
    package var dropResponseProbability: Double {
        get { state.withLock { $0.dropResponseProbability } }
        set { state.withLock { $0.dropResponseProbability = min(max(newValue, 0), 1) } }
    }

    /// When set, a request without this header field (name case-insensitive, value exact)
    /// gets a 401 with no effect. No `WWW-Authenticate` is sent: URLSession on Linux holds
    /// a task whose `Basic` challenge nobody answers.
    package var requiredHeader: (name: String, value: String)? {
        get { state.withLock { $0.requiredHeader } }
        set { state.withLock { $0.requiredHeader = newValue } }
    }

    /// Whether every answer closes its connection (the default). A lost answer then fails a
    /// URLSession client at once. Set it to false to keep connections alive as most servers
    /// do: on Linux, libcurl (under URLSession) re-sends a request whose reused connection
    /// closed before any byte of an answer, on a new connection and without its body, and
    /// this server waits for that body until the client gives up.
    package var closesConnections: Bool {
        get { state.withLock { $0.closesConnections } }
        set { state.withLock { $0.closesConnections = newValue } }
    }

    /// While true, a request about to perform an effect waits, its key (if any) marked as in
    /// progress, so that a concurrent request with the same key gets its 409; setting it back
    /// to false lets the waiting requests go on. See `waitForHeldRequests(_:timeout:)`.
    package var holdsEffects: Bool {
        get { state.withLock { $0.holdsEffects } }
        set { state.update { $0.holdsEffects = newValue } }
    }

    /// Makes the next `count` requests answer `status` with `headers` and a small JSON error
    /// body, with no effect and without touching their keys (after those scripted earlier).
    package func failNext(_ count: Int, status: Int, headers: [String: String] = [:]) {
        guard count > 0 else { return }
        state.withLock { $0.failures.append(ScriptedFailure(remaining: count, status: status, headers: headers)) }
    }

    // MARK: - What happened

    /// The effects performed, in order.
    package var effects: [Effect] {
        state.withLock { $0.effects }
    }

    /// How many effects requests with `key` performed (compared exactly).
    package func effectCount(forKey key: String) -> Int {
        state.withLock { state in state.effects.count { $0.key == key } }
    }

    /// Every request the route received: effects, replays, refusals and scripted failures.
    package var requestCount: Int {
        state.withLock { $0.requestCount }
    }

    /// Blocks until the route has received `count` requests, or `timeout` seconds pass.
    /// - Returns: whether it had.
    package func waitForRequests(_ count: Int, timeout: TimeInterval) -> Bool {
        state.wait(until: Date(timeIntervalSinceNow: timeout)) { $0.requestCount >= count }
    }

    /// Blocks until `count` requests wait under `holdsEffects`, or `timeout` seconds pass.
    /// - Returns: whether they did.
    package func waitForHeldRequests(_ count: Int = 1, timeout: TimeInterval) -> Bool {
        state.wait(until: Date(timeIntervalSinceNow: timeout)) { $0.heldCount >= count }
    }

    /// Forgets the effects, the keys, the request count and the scripted failures, restarts
    /// the generator from its seed and lets held requests go; the configuration stays. Call
    /// it with no request in flight: one that is finishes as if nothing had been reset.
    package func reset() {
        state.update { state in
            state.effects = []
            state.keys = [:]
            state.failures = []
            state.requestCount = 0
            state.random = SplitMix64(seed: state.seed)
            state.holdsEffects = false
        }
    }

    // MARK: - Answering

    private func respond(to request: LoopbackRequest) -> LoopbackResponse {
        let response: LoopbackResponse
        switch state.update({ decide(request, &$0) }) {
        case .answer(let answer): response = answer
        case .perform(let key, let held): response = perform(request, key: key, held: held)
        }
        // By default never a reused connection, so that a lost answer fails the client at
        // once (see `closesConnections`).
        return state.withLock { $0.closesConnections } ? response.closingConnection() : response
    }

    private func decide(_ request: LoopbackRequest, _ state: inout State) -> Decision {
        state.requestCount += 1
        if let failure = state.failures.first {
            state.failures[0].remaining -= 1
            if state.failures[0].remaining == 0 { state.failures.removeFirst() }
            var response = LoopbackResponse.status(failure.status)
            for (name, value) in failure.headers { response.headers[name] = value }
            return .answer(response)
        }
        if let required = state.requiredHeader, request.headers[required.name] != required.value {
            return .answer(.status(401))
        }
        let held = state.holdsEffects
        guard let key = request.headers[state.keyHeaderName] else {
            if held { state.heldCount += 1 }
            return .perform(key: nil, held: held)
        }
        guard let record = state.keys[key] else {
            // Marked before the effect, so that a concurrent request with this key sees it in progress.
            state.keys[key] = KeyRecord(method: request.method, target: request.target, body: request.body)
            if held { state.heldCount += 1 }
            return .perform(key: key, held: held)
        }
        // Another request under the same key is the client's mistake, whether or not the first is done.
        guard record.matches(request) else {
            return .answer(.json(["error": "idempotency key reused with another request"], status: 422))
        }
        guard let effect = record.effect else {
            return .answer(.json(["error": "a request with this idempotency key is in progress"], status: 409))
        }
        return .answer(Self.created(effect: effect, replayed: true).header("Idempotent-Replayed", "true"))
    }

    /// Performs the effect (after the hold, if held) and answers, or drops the answer.
    private func perform(_ request: LoopbackRequest, key: String?, held: Bool) -> LoopbackResponse {
        if held {
            // Not under `update`: the wait gives the lock up while the test looks and decides.
            _ = state.wait(until: nil) { !$0.holdsEffects }
        }
        let (sequence, dropped) = state.update { state in
            if held { state.heldCount -= 1 }
            let probability = state.dropResponseProbability
            let dropped = probability > 0 && state.random.nextUnit() < probability
            let sequence = state.effects.count + 1
            state.effects.append(
                Effect(
                    key: key, method: request.method, path: request.target, body: request.body, sequence: sequence,
                    headers: Self.lowercasedHeaders(request.headers), responseDropped: dropped))
            if let key { state.keys[key]?.effect = sequence }
            return (sequence, dropped)
        }
        guard !dropped else {
            var lost = LoopbackResponse()
            lost.closesWithoutAnswer = true
            return lost
        }
        return Self.created(effect: sequence, replayed: false)
    }

    private static func created(effect: Int, replayed: Bool) -> LoopbackResponse {
        .json(Created(effect: effect, replayed: replayed), status: 201)
    }

    private struct Created: Encodable {
        let effect: Int
        let replayed: Bool
    }

    private static func lowercasedHeaders(_ headers: LoopbackHeaders) -> [String: String] {
        var result: [String: String] = [:]
        for field in headers {
            let name = field.name.lowercased()
            result[name] = result[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return result
    }
}

extension LoopbackServer {
    /// Installs a deduplicating route on `path` (any method unless `method` is given) and
    /// returns the recorder of its effects; see `IdempotentEffects`.
    ///
    /// ```swift
    /// let effects = server.idempotentRoute(path: "/idempotent/*")
    /// ```
    package func idempotentRoute(method: String? = nil, path: String, seed: UInt64 = 0) -> IdempotentEffects {
        let effects = IdempotentEffects(seed: seed)
        route(effects.route(method: method, path: path))
        return effects
    }
}
