import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `HTTP1Transport` under a manager's request limits: the manager's dispatcher lets a
/// request through when another ends, and that request must take the connection the other
/// gave back, so that a host never sees more connections than the limit.
final class HTTP1ManagerLimitsTests: LoopbackIntegrationCase {
    func testABurstThroughAClient_neverOpensMoreConnectionsThanThePerHostLimit() throws {
        var configuration = HTTP1Transport.Configuration()
        configuration.cookieStorage = nil
        let transport = HTTP1Transport(
            configuration: configuration, connector: WebSocketByteStreams.connector, proxies: nil)
        server.route("GET", "/slowish", response: LoopbackResponse(body: Data("ok".utf8), delay: 0.005))
        let client = try makeClient { $0.transport(transport) }
        for round in 0..<5 {
            let ended = expectation(description: "round \(round)")
            ended.expectedFulfillmentCount = 32
            for _ in 0..<32 {
                client.execute(SpecEndpoint("/slowish"), serializer: DataResponseSerializer()) { response in
                    XCTAssertEqual(response.data, Data("ok".utf8))
                    ended.fulfill()
                }
            }
            wait(for: [ended], timeout: 10)
            XCTAssertLessThanOrEqual(
                server.counters.connectionCount, 6, "round \(round): the manager lets 6 through at once")
        }
        XCTAssertEqual(server.counters.requestCount, 160)
    }
}
