import Foundation
import Leash

/// One network scenario: an API and how many requests it keeps in flight.
struct NetworkMode {
    enum API: String {
        case raw = "raw URLSession"
        /// `try await session.data(for:)`: the floor of the async form.
        case rawAsync = "raw URLSession async"
        case callback = "leash callback"
        case rx = "leash client.rx"
        case async = "leash async"
        /// `URLSessionTransport.send` alone, no pipeline: separates the transport's cost
        /// from the pipeline's.
        case transport = "URLSessionTransport only"
        /// `HTTP1Transport.send` alone, no pipeline: Leash's own HTTP/1.1 client.
        case http1 = "HTTP1Transport only"
        /// `client.rx` over `URLSessionTransport` (the Leash rows use the platform's default
        /// transport: `HTTP1Transport` on Linux).
        case rxURLSession = "leash client.rx over URLSessionTransport"
    }

    /// Whether the scenario runs a transport alone, without Leash's pipeline.
    var isTransportOnly: Bool { api == .transport || api == .http1 }

    let api: API
    let concurrency: Int

    var name: String { "\(api.rawValue), " + (concurrency == 1 ? "one at a time" : "\(concurrency) in flight") }
}

/// The server child and the two clients every network scenario uses.
struct NetworkBench {
    let server: ServerProcess
    let raw: RawClient
    let leash: LeashSetup
    /// Leash over `URLSessionTransport`, for the row that compares the two transports.
    let leashOverURLSession: LeashSetup
    let transport = URLSessionTransport()
    let http1 = HTTP1Transport()

    /// `total` requests of `mode`, checked: each decoded to the expected value, each seen
    /// by the server, and for Leash each passed through the logger (twice) and the validator.
    func scenario(_ mode: NetworkMode, total: Int) -> Scenario {
        let server = self.server
        let raw = self.raw
        let leash = self.leash
        switch mode.api {
        case .raw:
            return Scenario(
                name: mode.name, operations: total, expect: Tally(values: total, served: total),
                observe: { Tally(served: server.requestCount()) }
            ) { RawScenarios.callbacks(raw, total: total, inFlight: mode.concurrency) }
        case .rawAsync:
            return Scenario(
                name: mode.name, operations: total, expect: Tally(values: total, served: total),
                observe: { Tally(served: server.requestCount()) }
            ) { RawScenarios.async(raw, total: total, inFlight: mode.concurrency) }
        case .transport:
            let transport = self.transport
            return Scenario(
                name: mode.name, operations: total, expect: Tally(values: total, served: total),
                observe: { Tally(served: server.requestCount()) }
            ) { RawScenarios.transport(transport, url: raw.url, total: total, inFlight: mode.concurrency) }
        case .http1:
            let transport = self.http1
            return Scenario(
                name: mode.name, operations: total, expect: Tally(values: total, served: total),
                observe: { Tally(served: server.requestCount()) }
            ) { RawScenarios.transport(transport, url: raw.url, total: total, inFlight: mode.concurrency) }
        case .rxURLSession:
            let leash = self.leashOverURLSession
            return Scenario(
                name: mode.name, operations: total,
                expect: Tally(values: total, served: total, interceptorCalls: 3 * total),
                observe: { Tally(served: server.requestCount(), interceptorCalls: leash.interceptorCalls()) }
            ) { LeashScenarios.rx(leash.client, total: total, inFlight: mode.concurrency) }
        case .callback, .rx, .async:
            return Scenario(
                name: mode.name, operations: total,
                expect: Tally(values: total, served: total, interceptorCalls: 3 * total),
                observe: { Tally(served: server.requestCount(), interceptorCalls: leash.interceptorCalls()) }
            ) {
                switch mode.api {
                case .callback: return LeashScenarios.callbacks(leash.client, total: total, inFlight: mode.concurrency)
                case .rx: return LeashScenarios.rx(leash.client, total: total, inFlight: mode.concurrency)
                default: return LeashScenarios.async(leash.client, total: total, inFlight: mode.concurrency)
                }
            }
        }
    }
}
