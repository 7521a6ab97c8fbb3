import Foundation
import Leash
import LoopbackServer
import RxLeash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The refresh storm (shared/BENCHMARKS.md, "Networking"): `total` concurrent requests
// that all get 401 once, through a manager set up with `refreshing(with:)`: exactly one
// refresh (a `POST /token` the server counts), `total` successes; against `total` plain
// requests carrying a valid credential, on the same server in the same run.
//
// The server runs in this process (its own routes rotate the token per refresh, which the
// `--serve` child does not do), so the CPU column includes the server's work; compare the
// two rows' wall times.

/// The server's token and what it counted, shared by its route handlers and the checks;
/// and a latch that holds the server's answers until every request of a run has been
/// started, so that all of them are built with the credential of the start (URLSession
/// sends only a few at a time, and the rest would otherwise be built after the refresh).
final class StormTokens: @unchecked Sendable {
    // @unchecked: every field is only touched under `lock`; `isHeld` under `hold`.
    private let hold = NSCondition()
    private var isHeld = false
    private let lock = NSLock()
    private var current = "t0"
    private var issuedCount = 0
    private var rejectedCount = 0
    private var stormRuns: [Int] = []

    var valid: String { lock.withLock { "Bearer \(current)" } }
    var issued: Int { lock.withLock { issuedCount } }
    var rejected: Int { lock.withLock { rejectedCount } }

    /// Whether `header` carries the current token (counting the rejections).
    func accepts(_ header: String?) -> Bool {
        lock.withLock {
            if header == "Bearer \(current)" { return true }
            rejectedCount += 1
            return false
        }
    }

    /// Holds the server's answers (`true`) or lets them go (`false`).
    func holdAnswers(_ held: Bool) {
        hold.withLock {
            isHeld = held
            if !held { hold.broadcast() }
        }
    }

    /// Waits while answers are held (at most 30 s, so that a broken run cannot hang).
    func waitWhileHeld() {
        let deadline = Date(timeIntervalSinceNow: 30)
        hold.withLock {
            while isHeld && hold.wait(until: deadline) {}
        }
    }

    /// Records how many 401s a storm run caused.
    func recordStorm(rejections: Int) {
        lock.withLock { stormRuns.append(rejections) }
    }

    /// The 401s of each storm run so far.
    var stormRejections: [Int] { lock.withLock { stormRuns } }

    /// Issues a new token, which replaces the current one.
    func issue() -> String {
        lock.withLock {
            issuedCount += 1
            current = "t\(issuedCount)"
            return current
        }
    }
}

/// The credential of the storm's client: expired at the start of each run, replaced by
/// the refresh.
final class StormAuthenticator: Authenticator, @unchecked Sendable {
    // @unchecked: the token is behind `lock`.
    static var header: String { "Authorization" }
    private let lock = NSLock()
    private var token: String?

    var accessToken: String? {
        get { lock.withLock { token } }
        set { lock.withLock { token = newValue } }
    }

    var authentication: String? { accessToken.map { "Bearer \($0)" } }
}

/// The plain client's credential: always the server's current one.
final class ValidAuthenticator: Authenticator, @unchecked Sendable {
    // @unchecked: immutable; `StormTokens` is thread-safe.
    static var header: String { "Authorization" }
    let tokens: StormTokens
    init(tokens: StormTokens) { self.tokens = tokens }
    var authentication: String? { tokens.valid }
}

private struct StormToken: Decodable, Sendable {
    let token: String
}

private enum StormAPI: Endpoint {
    case token

    var path: String { "/token" }
    var method: HTTPMethod { .post }
}

/// The server, the storm's client (refreshing) and the plain client.
struct RefreshStormBench {
    static let stormName = "refresh storm (all 401 once, one refresh)"
    static let plainName = "plain requests (valid credential)"

    let server: LoopbackServer
    let tokens = StormTokens()
    let authenticator = StormAuthenticator()
    let storm: Client
    let plain: Client

    init() {
        do {
            server = try LoopbackServer()
        } catch {
            fail("cannot start the loopback server: \(error)")
        }
        let tokens = self.tokens
        let body = Data(LoopbackServer.sampleJSON.utf8)
        server.route("GET", "/json") { request in
            tokens.waitWhileHeld()
            return tokens.accepts(request.headers["Authorization"]) ? .json(body) : .status(401)
        }
        server.route("POST", "/token") { _ in
            let token = tokens.issue()
            return .json(Data(#"{"token":"\#(token)"}"#.utf8))
        }
        server.start()
        let transport = URLSessionTransport()
        do {
            let tokenClient = Client(manager: try Manager.Builder().url(server.baseURL).transport(transport).build())
            let authenticator = self.authenticator
            // The window's cap is raised: every run refreshes once, and runs follow each
            // other within a minute. Each run still checks that it refreshed exactly once.
            let refresher = TokenRefresher(authenticator: authenticator, maximumRefreshes: 1_000) {
                tokenClient.rx.single(StormAPI.token, type: StormToken.self)
                    .do(onSuccess: { authenticator.accessToken = $0.token })
                    .asCompletable()
            }
            storm = Client(
                manager: try Manager.Builder().url(server.baseURL).transport(transport).refreshing(with: refresher)
                    .timeout(120).build())
            plain = Client(
                manager: try Manager.Builder().url(server.baseURL).transport(transport)
                    .authenticator(ValidAuthenticator(tokens: tokens)).timeout(120).build())
        } catch {
            fail("cannot build the managers: \(error)")
        }
    }

    /// The two scenarios, `total` requests each, all started at once.
    func scenarios(total: Int) -> [Scenario] {
        // The scenarios keep the server running: it stops when freed.
        let server = self.server
        let tokens = self.tokens
        let authenticator = self.authenticator
        let storm = self.storm
        let plain = self.plain
        return [
            Scenario(name: Self.stormName, operations: total, expect: Tally(values: total)) {
                authenticator.accessToken = "expired"
                let (issuedBefore, rejectedBefore) = (tokens.issued, tokens.rejected)
                let tally = withExtendedLifetime(server) { Self.requests(storm, total: total, tokens: tokens) }
                let refreshes = tokens.issued - issuedBefore
                tokens.recordStorm(rejections: tokens.rejected - rejectedBefore)
                guard refreshes == 1, tokens.rejected - rejectedBefore == total else {
                    fail(
                        "\(Self.stormName): \(refreshes) refreshes, \(tokens.rejected - rejectedBefore) 401s, \(tally)")
                }
                return tally
            },
            Scenario(name: Self.plainName, operations: total, expect: Tally(values: total)) {
                let rejectedBefore = tokens.rejected
                let tally = withExtendedLifetime(server) { Self.requests(plain, total: total, tokens: tokens) }
                guard tokens.rejected == rejectedBefore else { fail("\(Self.plainName): got 401s") }
                return tally
            },
        ]
    }

    /// `total` executions of `GET /json`, all started before the server answers any.
    private static func requests(_ client: Client, total: Int, tokens: StormTokens) -> Tally {
        let tally = SharedTally()
        let done = DispatchGroup()
        tokens.holdAnswers(true)
        for _ in 0..<total {
            done.enter()
            client.execute(BenchmarkAPI.json) { (response: Response<Sample>) in
                tally.record(response.value)
                done.leave()
            }
        }
        tokens.holdAnswers(false)
        done.wait()
        return tally.value
    }

    /// The table of the two rows: wall time and the storm's time against the plain one's;
    /// then how many requests of a storm were rejected (and so sent twice).
    func report(_ timings: [Timing]) {
        let stormName = Self.stormName
        let plainName = Self.plainName
        guard let storm = timings.first(where: { $0.scenario.name == stormName }),
            let plain = timings.first(where: { $0.scenario.name == plainName })
        else { return }
        print("| scenario | seconds | requests/s | storm / plain |")
        print("|---|---:|---:|---:|")
        for timing in [storm, plain] {
            let ratio = timing.scenario.name == stormName ? String(format: "%.2f", storm.seconds / plain.seconds) : "–"
            print(
                "| \(timing.scenario.name) | \(String(format: "%.3f", timing.seconds)) | "
                    + "\(String(format: "%.0f", timing.operationsPerSecond)) | \(ratio) |")
        }
        let rejections = tokens.stormRejections.sorted()
        if let least = rejections.first, let most = rejections.last {
            print()
            print(
                "Each storm run: 1 refresh; \(least)–\(most) of the \(storm.scenario.operations) requests "
                    + "answered 401 and retried (all sent with the expired token).")
        }
    }
}
