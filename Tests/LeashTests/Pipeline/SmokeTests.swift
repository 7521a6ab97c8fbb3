import Foundation
import Leash
import LeashTesting
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct Sample: Decodable, Equatable {
    let id: Int
    let name: String
}

private enum API: Endpoint {
    case json
    case status(Int)
    var path: String {
        switch self {
        case .json: return "/json"
        case .status(let code): return "/status/\(code)"
        }
    }
    var method: HTTPMethod { .get }
}

final class SmokeTests: XCTestCase {
    func testStubTransport_decodesValue() throws {
        let transport = StubTransport()
        transport.stub(.get, path: "/json", .json(#"{"id":1,"name":"Leash"}"#))
        let manager = try Manager.Builder().url("http://example.com").transport(transport).build()
        let client = Client(manager: manager)
        let done = expectation(description: "done")
        client.execute(API.json) { (response: Response<Sample>) in
            XCTAssertEqual(response.value, Sample(id: 1, name: "Leash"))
            XCTAssertEqual(response.source, .network)
            XCTAssertEqual(response.statusCode, 200)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    func testLoopback_decodesValueAndStatusErrors() async throws {
        let server = try LoopbackServer()
        server.start()
        defer { server.stop() }
        let manager = try Manager.Builder().url(server.baseURL).build()
        let client = Client(manager: manager)
        let value = try await client.execute(API.json, as: Sample.self)
        XCTAssertEqual(value.id, 1)
        do {
            _ = try await client.execute(API.status(404), as: Sample.self)
            XCTFail("expected an error")
        } catch let error as LeashError {
            XCTAssertEqual(error.statusCode, 404)
            print(error)
        }
    }
}
