import AsyncHTTPClient
import Foundation
import Leash
import LeashAsyncHTTPClient
import NIOCore
import NIOFoundationCompat
import NIOPosix

/// One peer scenario: a client and how many requests it keeps in flight.
struct PeerMode {
    enum API: String, CaseIterable {
        /// SwiftNIO's HTTP client: `try await client.execute(_:timeout:)`, the body collected.
        case asyncHTTPClient = "AsyncHTTPClient"
        /// `HTTP1Transport.send` alone, no pipeline (net-benchmarks' row of the same name).
        case http1 = "HTTP1Transport only"
        /// `client.rx` through Leash's pipeline over `HTTP1Transport`.
        case rx = "leash client.rx over HTTP1Transport"
        /// URLSession's completion handlers (net-benchmarks' row of the same name).
        case raw = "raw URLSession"
        /// AsyncHTTPClient on a group of one event loop of its own instead of the singleton
        /// group (one loop per core): the configuration AsyncHTTPClient recommends against the
        /// one that may suit two shared cores better.
        case asyncHTTPClientOneLoop = "AsyncHTTPClient on 1 event loop"
        /// AsyncHTTPClient's `EventLoopFuture` API: `execute(request:)` with an
        /// `HTTPClient.Request`, the body collected by its `ResponseAccumulator`, decoded in
        /// the future's callback; the API `AsyncHTTPClientTransport` is built on.
        case asyncHTTPClientFuture = "AsyncHTTPClient, EventLoopFuture API"
        /// `client.rx` through Leash's pipeline over `AsyncHTTPClientTransport` (its own
        /// client on the singleton group, `recommendedConfiguration`), answers handed to Leash
        /// on the event loop (the default).
        case rxAsyncHTTPClient = "leash client.rx over AsyncHTTPClient"
        /// The same, answers handed to Leash off the event loop, on the transport's delivery
        /// queues (`deliversOnEventLoop: false`).
        case rxAsyncHTTPClientOffLoop = "leash client.rx over AsyncHTTPClient, answers off the loop"
    }

    let api: API
    let concurrency: Int

    var name: String { "\(api.rawValue), " + (concurrency == 1 ? "one at a time" : "\(concurrency) in flight") }
}

/// AsyncHTTPClient as its documentation has an app use it: one client on the singleton
/// event loop group, `execute(_:timeout:)`, the body collected up to a limit, decoded with
/// `JSONDecoder` from the `ByteBuffer` (`NIOFoundationCompat`); the same request as the
/// other clients (`GET /json` with the bearer header).
final class AsyncHTTPClientPeer: Sendable {
    let client: HTTPClient
    let url: String
    private let decoder = JSONDecoder()
    /// The group made for this client, if it is not on the singleton group.
    private let ownGroup: MultiThreadedEventLoopGroup?

    /// The largest body collected; `/json` is 40 bytes.
    static let bodyLimit = 1024 * 1024

    /// A client on the singleton group (`System.coreCount` event loops), or on a group of
    /// its own with `eventLoops` loops.
    init(baseURL: URL, eventLoops: Int? = nil) {
        if let eventLoops {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: eventLoops)
            ownGroup = group
            client = HTTPClient(eventLoopGroupProvider: .shared(group))
        } else {
            ownGroup = nil
            client = HTTPClient(eventLoopGroupProvider: .singleton)
        }
        url = baseURL.appendingPathComponent("json").absoluteString
    }

    /// `GET /json`, decoded; `nil` for an error, a status other than 200 or a body that does
    /// not decode.
    func get() async -> Sample? {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: benchmarkToken)
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: Self.bodyLimit)
            guard response.status == .ok else { return nil }
            return try decoder.decode(Sample.self, from: body)
        } catch {
            return nil
        }
    }

    /// `GET /json` through the `EventLoopFuture` API, decoded in the future's callback;
    /// `completion` gets `nil` as `get()` returns it.
    func getWithFuture(completion: @escaping @Sendable (Sample?) -> Void) {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: url, headers: ["Authorization": benchmarkToken])
        } catch {
            return completion(nil)
        }
        let decoder = self.decoder
        client.execute(request: request).whenComplete { result in
            guard case .success(let response) = result, response.status == .ok, let body = response.body else {
                return completion(nil)
            }
            completion(try? decoder.decode(Sample.self, from: body))
        }
    }

    /// Closes the client's connections, then its own group if it has one (never the
    /// singleton group).
    func shutdown() {
        do {
            try client.syncShutdown()
            try ownGroup?.syncShutdownGracefully()
        } catch {
            fail("cannot shut AsyncHTTPClient down: \(error)")
        }
    }
}

/// The server child and the clients every peer scenario uses.
struct PeerBench {
    let server: ServerProcess
    let asyncHTTPClient: AsyncHTTPClientPeer
    let asyncHTTPClientOneLoop: AsyncHTTPClientPeer
    /// For `HTTP1Transport only`: a transport of its own, as in net-benchmarks.
    let http1 = HTTP1Transport()
    /// Leash as net-benchmarks sets it up (logger, validator, authenticator), over an
    /// `HTTP1Transport` of its own.
    let leash: LeashSetup
    let raw: RawClient
    /// `AsyncHTTPClientTransport`s with clients of their own (shut down by `shutdown()`),
    /// answering on the event loop and off it, and Leash set up over each as over
    /// `HTTP1Transport`.
    let asyncHTTPClientTransport = AsyncHTTPClientTransport()
    let asyncHTTPClientTransportOffLoop = AsyncHTTPClientTransport(deliversOnEventLoop: false)
    let leashOverAsyncHTTPClient: LeashSetup
    let leashOverAsyncHTTPClientOffLoop: LeashSetup

    init(server: ServerProcess) {
        self.server = server
        asyncHTTPClient = AsyncHTTPClientPeer(baseURL: server.baseURL)
        asyncHTTPClientOneLoop = AsyncHTTPClientPeer(baseURL: server.baseURL, eventLoops: 1)
        leash = LeashSetup(baseURL: server.baseURL, transport: HTTP1Transport())
        raw = RawClient(baseURL: server.baseURL)
        leashOverAsyncHTTPClient = LeashSetup(baseURL: server.baseURL, transport: asyncHTTPClientTransport)
        leashOverAsyncHTTPClientOffLoop = LeashSetup(
            baseURL: server.baseURL, transport: asyncHTTPClientTransportOffLoop)
    }

    /// Shuts every AsyncHTTPClient down.
    func shutdown() {
        asyncHTTPClient.shutdown()
        asyncHTTPClientOneLoop.shutdown()
        do {
            try asyncHTTPClientTransport.syncShutdown()
            try asyncHTTPClientTransportOffLoop.syncShutdown()
        } catch {
            fail("cannot shut AsyncHTTPClientTransport down: \(error)")
        }
    }

    /// `total` requests of `mode`, checked: each decoded to the expected value, each seen by
    /// the server (so each carried the credential), and for Leash each passed through the
    /// logger (twice) and the validator.
    func scenario(_ mode: PeerMode, total: Int) -> Scenario {
        let server = self.server
        let served = { Tally(served: server.requestCount()) }
        let expect = Tally(values: total, served: total)
        switch mode.api {
        case .asyncHTTPClient, .asyncHTTPClientOneLoop:
            let peer = mode.api == .asyncHTTPClient ? asyncHTTPClient : asyncHTTPClientOneLoop
            return Scenario(name: mode.name, operations: total, expect: expect, observe: served) {
                asyncLanes(total: total, inFlight: mode.concurrency) { await peer.get() }
            }
        case .http1:
            let transport = http1
            let url = raw.url
            return Scenario(name: mode.name, operations: total, expect: expect, observe: served) {
                RawScenarios.transport(transport, url: url, total: total, inFlight: mode.concurrency)
            }
        case .asyncHTTPClientFuture:
            let peer = asyncHTTPClient
            return Scenario(name: mode.name, operations: total, expect: expect, observe: served) {
                closedLoop(total: total, inFlight: mode.concurrency) { completion in
                    peer.getWithFuture(completion: completion)
                }
            }
        case .rx, .rxAsyncHTTPClient, .rxAsyncHTTPClientOffLoop:
            let leash =
                switch mode.api {
                case .rxAsyncHTTPClient: leashOverAsyncHTTPClient
                case .rxAsyncHTTPClientOffLoop: leashOverAsyncHTTPClientOffLoop
                default: self.leash
                }
            return Scenario(
                name: mode.name, operations: total,
                expect: Tally(values: total, served: total, interceptorCalls: 3 * total),
                observe: { Tally(served: server.requestCount(), interceptorCalls: leash.interceptorCalls()) }
            ) { LeashScenarios.rx(leash.client, total: total, inFlight: mode.concurrency) }
        case .raw:
            let raw = self.raw
            return Scenario(name: mode.name, operations: total, expect: expect, observe: served) {
                RawScenarios.callbacks(raw, total: total, inFlight: mode.concurrency)
            }
        }
    }
}
