import Foundation
import Leash
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A timeout that means "no limit" for Leash's own deadline must not crash the default
/// transport either.
final class PipelineURLSessionTimeoutTests: XCTestCase {

    private struct JSONEndpoint: Endpoint {
        var path: String { "/json" }
        var method: HTTPMethod { .get }
    }

    func testURLSessionTransport_infiniteTimeout_executesWithoutCrashing() async throws {
        // URLSession traps on an infinite `timeoutInterval`: the request's must stay finite
        // even when Leash's own deadline is "no limit".
        let server = try LoopbackServer()
        server.start()
        defer { server.stop() }
        let client = Client(manager: try Manager.Builder().url(server.baseURL).timeout(.infinity).build())

        let body = try await client.execute(JSONEndpoint(), serializer: DataResponseSerializer())

        XCTAssertFalse(body.isEmpty)
    }
}
