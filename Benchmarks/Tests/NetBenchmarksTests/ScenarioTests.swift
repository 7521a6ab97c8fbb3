import Foundation
import Leash
import LoopbackServer
import XCTest

@testable import net_benchmarks

/// The scenarios against an in-process server (the benchmark runs it in a child process;
/// here the counters are read directly): each must decode every response, and each request
/// must reach the server with the credential.
final class ScenarioTests: XCTestCase {
    private var server: LoopbackServer!

    override func setUpWithError() throws {
        server = try makeBenchmarkServer()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    func testRawScenario_oneAtATimeAndInFlight_decodesEveryResponseAndReachesTheServer() {
        let raw = RawClient(baseURL: server.baseURL)
        XCTAssertEqual(RawScenarios.callbacks(raw, total: 20, inFlight: 1), Tally(values: 20))
        XCTAssertEqual(RawScenarios.callbacks(raw, total: 40, inFlight: 64), Tally(values: 40))
        XCTAssertEqual(server.requestCount, 60)
    }

    func testLeashCallbackScenario_passesEveryRequestThroughLoggerValidatorAndAuthenticator() {
        let leash = LeashSetup(baseURL: server.baseURL, transport: URLSessionTransport())
        XCTAssertEqual(LeashScenarios.callbacks(leash.client, total: 20, inFlight: 1), Tally(values: 20))
        XCTAssertEqual(LeashScenarios.callbacks(leash.client, total: 40, inFlight: 64), Tally(values: 40))
        XCTAssertEqual(server.requestCount, 60)
        XCTAssertEqual(leash.interceptorCalls(), 3 * 60)
        XCTAssertGreaterThanOrEqual(leash.credentialReads, 60)
    }

    func testLeashAsyncScenario_spreadsRequestsOverLanesAndDecodesEveryResponse() {
        let leash = LeashSetup(baseURL: server.baseURL, transport: URLSessionTransport())
        XCTAssertEqual(LeashScenarios.async(leash.client, total: 20, inFlight: 1), Tally(values: 20))
        // 70 is not a multiple of the lanes: the remainder must still be executed.
        XCTAssertEqual(LeashScenarios.async(leash.client, total: 70, inFlight: 64), Tally(values: 70))
        XCTAssertEqual(server.requestCount, 90)
        XCTAssertEqual(leash.interceptorCalls(), 3 * 90)
        XCTAssertEqual(leash.credentialReads, 90, "the async API builds each request once")
    }

    func testServer_requestWithoutTheCredential_isRefused_andTheScenarioCountsFailures() throws {
        // A client without the authenticator: the server answers 401, the validator turns
        // it into an error, and the tally shows failures, so such a run cannot pass.
        let manager = try Manager.Builder().url(server.baseURL).add(interceptor: StatusValidator()).build()
        let tally = LeashScenarios.callbacks(Client(manager: manager), total: 10, inFlight: 2)
        XCTAssertEqual(tally, Tally(failures: 10))
        XCTAssertEqual(server.requestCount, 10)
    }

    func testNetworkModeNames_matchTheTableRows() {
        XCTAssertEqual(NetworkMode(api: .raw, concurrency: 1).name, "raw URLSession, one at a time")
        XCTAssertEqual(NetworkMode(api: .async, concurrency: 64).name, "leash async, 64 in flight")
    }
}

final class PipelineScenarioTests: XCTestCase {
    func testPipelineWithInterceptors_runsAllFiveOncePerExecution() {
        let setup = PipelineSetup(interceptors: true)
        XCTAssertEqual(PipelineScenarios.executions(setup.client, total: 50), Tally(values: 50))
        XCTAssertEqual(setup.interceptorCalls(), 5 * 50)
    }

    func testPipelineWithoutInterceptors_decodesEveryExecution() {
        let setup = PipelineSetup(interceptors: false)
        XCTAssertEqual(PipelineScenarios.executions(setup.client, total: 50), Tally(values: 50))
        XCTAssertEqual(setup.interceptorCalls(), 0)
    }

    func testDecodeOnly_decodesTheServersBody() {
        XCTAssertEqual(PipelineScenarios.decodeOnly(total: 10), Tally(values: 10))
    }
}
