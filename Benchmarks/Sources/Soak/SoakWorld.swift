import Foundation
import Leash
import LeashInterceptors
import LoopbackServer
import Rx
import RxLeash

/// What the executions run against: a `LoopbackServer`, a `FaultProxy` in front of it, the
/// token the protected route wants (which the soak expires every few seconds), and the
/// client every form uses, with a retry policy and a token refresher, over the run's
/// transport.
final class SoakWorld: @unchecked Sendable {
    // @unchecked: `client` is set once before the workers start and cleared after they
    // stopped; the rest is immutable or behind its own lock.
    let server: LoopbackServer
    let proxy: FaultProxy
    let tokens = TokenAuthority()
    let folder: URL
    let ledger: Ledger
    /// The kind of transport the client goes through.
    let transport: SoakTransport
    private(set) var client: Client?

    init(ledger: Ledger, transport: SoakTransport) throws {
        self.ledger = ledger
        self.transport = transport
        server = try LoopbackServer()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("leash-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tokens = self.tokens
        server.route(
            .get("/protected") { request in
                tokens.admits(request.headers["Authorization"]) ? .json(Data(#"{"ok":true}"#.utf8)) : .status(401)
            })
        server.route(
            LoopbackServer.Route(method: "POST", path: "/token") { _ in
                .json(Data(#"{"token":"\#(tokens.issue())"}"#.utf8))
            })
        server.start()
        proxy = try FaultProxy(in: server, logCapacity: 0) { [ledger] sighting in
            // The tag is "execution/attempt" (see `makeClient`).
            guard let tag = sighting.tag?.split(separator: "/"), tag.count == 2, let execution = Int(tag[0]),
                let attempt = Int(tag[1])
            else { return }
            if ledger.builtAfterEnd(attempt: attempt, of: execution) {
                let form = SoakWorld.forms.withLock { $0[execution % SoakWorld.formSlots] } ?? .rx
                ledger.update(form) { $0.sentAfterEnd += 1 }
                ledger.example(form, "#\(execution): attempt \(attempt) sent after the execution ended")
            }
        }
    }

    /// Which form each recent execution had, for the proxy's report of a late request.
    static let forms = LockedBox<[Form?]>(Array(repeating: nil, count: formSlots))
    static let formSlots = 1 << 16

    /// The client every form uses (made by `start()`): through the proxy, a 2 s timeout (so
    /// that a stall or a black hole ends soon), retries of idempotent requests (which resume
    /// downloads), the token refresher, and an adapter that tags each attempt.
    func start() throws {
        client = try Self.makeClient(
            proxy: proxy, server: server, transport: transport.make(), tokens: tokens, ledger: ledger)
    }

    /// Lets go of the client (and so of its transport, its sessions and connections).
    func stopClient() {
        client = nil
    }

    /// The client, over `transport`: a new one each time the world starts a client (for the
    /// warm-up, then for the run), not the process's shared one, so that letting go of the
    /// client closes its connections and the process's descriptors come back.
    static func makeClient(
        proxy: FaultProxy, server: LoopbackServer, transport: Transport, tokens: TokenAuthority, ledger: Ledger
    ) throws -> Client {
        let store = tokens.store
        // The refresh goes straight to the server: one refresh per expiry is then a rule
        // the soak can check (a fault there would make refreshes fail, not repeat). Over the
        // same transport (its connections to the server are apart from the proxy's).
        let tokenClient = Client(
            manager: try Manager.Builder().url(server.baseURL).transport(transport).timeout(5).build())
        let refresher = TokenRefresher(authenticator: store, maximumRefreshes: 100_000) {
            tokenClient.rx.single(TokenEndpoint(), type: IssuedToken.self)
                .do(onSuccess: { store.token = $0.token }).asCompletable()
        }
        var retry = RetryPolicy(maximumAttempts: 3, baseDelay: 0.05, maximumDelay: 0.2)
        retry.retryableURLErrorCodes.insert(.timedOut)
        let attempts = AtomicCounter()
        let manager = try Manager.Builder().url(proxy.baseURL).transport(transport).timeout(2)
            .authenticator(store)
            .add(interceptor: RetryInterceptor(policy: retry))
            .adapt { request, _ in
                var tagged = request
                guard let execution = request.value(forHTTPHeaderField: FaultProxy.tagHeader) else { return request }
                let attempt = attempts.next()
                let number = Int(execution) ?? -1
                let form = number < 0 ? nil : SoakWorld.forms.withLock { $0[number % SoakWorld.formSlots] }
                ledger.adapted(
                    attempt: attempt, of: number, throughTransport: form != .webSocket && form != .webSocketSession)
                tagged.setValue("\(execution)/\(attempt)", forHTTPHeaderField: FaultProxy.tagHeader)
                return tagged
            }
            .refreshing(with: refresher)
            .build()
        return Client(manager: manager)
    }
}

/// The protected route's token: `expire()` makes the current one refused, and the token
/// route issues a new one only when the current one expired (a refresh while it is still
/// good is counted as redundant).
final class TokenAuthority: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`.
    private let lock = NSLock()
    private var current = "token-0"
    private var expired = false
    private var generation = 0
    private(set) var expiries = 0
    private(set) var refreshes = 0
    private(set) var redundantRefreshes = 0
    /// The client's side: the token it sends.
    let store = TokenBox(token: "token-0")

    func admits(_ authorization: String?) -> Bool {
        lock.withLock { !expired && authorization == "Bearer \(current)" }
    }

    func expire() {
        lock.withLock {
            if !expired { expiries += 1 }
            expired = true
        }
    }

    func issue() -> String {
        lock.withLock {
            refreshes += 1
            guard expired else {
                redundantRefreshes += 1
                return current
            }
            generation += 1
            current = "token-\(generation)"
            expired = false
            return current
        }
    }

    var counts: (expiries: Int, refreshes: Int, redundant: Int) {
        lock.withLock { (expiries, refreshes, redundantRefreshes) }
    }
}

/// The client's token (an `Authenticator` sending `Bearer <token>`).
final class TokenBox: Authenticator, @unchecked Sendable {
    // @unchecked: `stored` is touched only under `lock`.
    private let lock = NSLock()
    private var stored: String?

    init(token: String) {
        stored = token
    }

    static var header: String { "Authorization" }

    var token: String? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    var authentication: String? { token.map { "Bearer \($0)" } }
}

struct TokenEndpoint: Endpoint {
    var path: String { "/token" }
    var method: HTTPMethod { .post }
}

struct IssuedToken: Decodable {
    let token: String
}

/// A value behind a lock.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked: `value` is touched only under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}

/// A counter that hands out 0, 1, 2… to any thread.
final class AtomicCounter: @unchecked Sendable {
    // @unchecked: `value` is touched only under `lock`.
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            defer { value += 1 }
            return value
        }
    }

    /// The next value `next()` hands out.
    func peek() -> Int {
        lock.withLock { value }
    }
}
