import Foundation
import Leash
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private final class LoopbackAuthenticator: Authenticator, @unchecked Sendable {
    // @unchecked: the token is set before requests are built, on the test's thread.
    static var header: String { "Authorization" }
    var token: String?
    var authentication: String? { token.map { "Bearer \($0)" } }
    init(token: String?) { self.token = token }
}

private struct GetSample: TypedEndpoint {
    typealias Response = LoopbackSample
    var path: String { "/json" }
    var method: HTTPMethod { .get }
}

private struct Note: Codable, Equatable {
    let title: String
    let createdAt: Date
}

private struct Blob: Encodable {
    let payload: String
}

private struct ErrorBody: Decodable, Equatable {
    let error: String
    let status: Int
}

private struct Search: QueryEncodable {
    let term: String
    let page: Int
}

final class LoopbackExecutionTests: LoopbackIntegrationCase {
    // MARK: GET and decoding

    func testGet_json_decodesValueWithNetworkDetails() throws {
        let client = try makeClient()
        let done = expectation(description: "value")
        client.execute(SpecEndpoint("/json")) { (response: Response<LoopbackSample>) in
            XCTAssertEqual(response.value, LoopbackSample(id: 1, name: "Leash", tags: ["a", "b"]))
            XCTAssertEqual(response.source, .network)
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(response.headers["Content-Type"], "application/json")
            XCTAssertEqual(response.data, Data(LoopbackServer.sampleJSON.utf8))
            XCTAssertEqual(response.details?.request?.url, self.server.url(path: "/json"))
            // No main-queue default: command-line programs and servers never run it.
            XCTAssertFalse(Thread.isMainThread)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testGet_typedEndpoint_async_infersTheType() async throws {
        let client = try makeClient()
        let sample = try await client.execute(GetSample())
        XCTAssertEqual(sample.name, "Leash")
    }

    func testGet_responseCallback_itsResult() throws {
        let client = try makeClient()
        let done = expectation(description: "result")
        client.execute(SpecEndpoint("/json")) { (response: Response<LoopbackSample>) in
            XCTAssertEqual(try? response.result.get().id, 1)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testGet_callbackQueue_deliversThere() throws {
        let queue = DispatchQueue(label: "leash.tests.callbacks")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let client = try makeClient { $0.callbackQueue(queue) }
        let done = expectation(description: "on queue")
        client.execute(SpecEndpoint("/json")) { (response: Response<LoopbackSample>) in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), 42)
            XCTAssertNotNil(response.value)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    func testGet_bodyThatDoesNotDecode_isDecodingErrorWithExcerpt() throws {
        let response = try outcome(
            try makeClient(), SpecEndpoint("/echo"), DecodableResponseSerializer<LoopbackSample>())
        guard case .decoding(let type, let underlying, let excerpt) = response.error as? LeashError else {
            return XCTFail("expected LeashError.decoding, got \(response)")
        }
        XCTAssertEqual(type, "LoopbackSample")
        guard case .keyNotFound(let key, _) = underlying as? DecodingError else {
            return XCTFail("expected keyNotFound, got \(underlying)")
        }
        XCTAssertEqual(key.stringValue, "id")
        XCTAssertTrue(excerpt.hasPrefix("{"), excerpt)
        XCTAssertTrue(excerpt.hasPrefix(#"{"body":"","bodyBase64":"""#), excerpt)
        XCTAssertTrue(excerpt.hasSuffix("…"), "the echo is longer than the excerpt")
    }

    func testGet_redirect_isFollowed() throws {
        server.route(
            "GET", "/old", response: LoopbackResponse(status: 302, headers: ["Location": "/json"]))
        let response = try outcome(
            try makeClient(), SpecEndpoint("/old"), DecodableResponseSerializer<LoopbackSample>())
        XCTAssertEqual(response.value?.id, 1)
        XCTAssertEqual(server.requestCount, 2)
    }

    // MARK: What the server sees

    func testEcho_showsMethodSortedEncodedQueryAndHeaders() throws {
        let client = try makeClient {
            $0.authenticator(LoopbackAuthenticator(token: "t0k3n")).header("X-Default", "d").header("X-Both", "manager")
        }
        let endpoint = SpecEndpoint(
            "/echo", parameters: ["b": "x y", "a": "1&2=3+4", "list": [1, 2], "é": "ü"],
            headers: ["X-Endpoint": "e", "X-Both": "endpoint"])
        let echoed = try echo(client, endpoint)
        XCTAssertEqual(echoed.method, "GET")
        XCTAssertEqual(echoed.path, "/echo")
        XCTAssertEqual(echoed.query, "a=1%262%3D3%2B4&b=x%20y&list%5B%5D=1&list%5B%5D=2&%C3%A9=%C3%BC")
        XCTAssertEqual(
            echoed.queryItems.map { "\($0.name)=\($0.value ?? "")" },
            ["a=1&2=3+4", "b=x y", "list[]=1", "list[]=2", "é=ü"])
        XCTAssertEqual(echoed.headers["authorization"], "Bearer t0k3n")
        XCTAssertEqual(echoed.headers["x-default"], "d")
        XCTAssertEqual(echoed.headers["x-endpoint"], "e")
        XCTAssertEqual(echoed.headers["x-both"], "endpoint")
        XCTAssertEqual(echoed.headers["user-agent"], "Leash/1.0")
        XCTAssertEqual(echoed.body, "")
    }

    func testEcho_queryEncodable_andPathWithSpaces() throws {
        let echoed = try echo(
            try makeClient(), SpecEndpoint("/echo/a b/ü", parameters: Search(term: "rx & co", page: 3)))
        XCTAssertEqual(echoed.path, "/echo/a%20b/%C3%BC")
        XCTAssertEqual(echoed.query, "page=3&term=rx%20%26%20co")
    }

    func testEcho_nilAuthentication_sendsNoAuthorization() throws {
        let echoed = try echo(
            try makeClient { $0.authenticator(LoopbackAuthenticator(token: nil)) }, SpecEndpoint("/echo"))
        XCTAssertNil(echoed.headers["authorization"])
    }

    func testEcho_postEncodableBody_withTheManagersEncoder() throws {
        let client = try makeClient {
            $0.jsonEncoder {
                $0.keyEncodingStrategy = .convertToSnakeCase
                $0.dateEncodingStrategy = .secondsSince1970
                $0.outputFormatting = .sortedKeys
            }
        }
        let note = Note(title: "hi", createdAt: Date(timeIntervalSince1970: 10))
        let echoed = try echo(client, SpecEndpoint("/echo", method: .post, parameters: note))
        XCTAssertEqual(echoed.method, "POST")
        XCTAssertEqual(echoed.body, #"{"created_at":10,"title":"hi"}"#)
        XCTAssertEqual(echoed.headers["content-type"], "application/json")
        XCTAssertNil(echoed.query)
    }

    func testEcho_putPatchDeleteBodies() throws {
        let client = try makeClient()
        for method in [HTTPMethod.put, .patch] {
            let echoed = try echo(client, SpecEndpoint("/echo", method: method, parameters: ["k": [1, 2], "a": "b"]))
            XCTAssertEqual(echoed.method, method.rawValue)
            XCTAssertEqual(echoed.body, #"{"a":"b","k":[1,2]}"#)
        }
        let deleteBody = try echo(client, SpecEndpoint("/echo", method: .delete, parameters: Blob(payload: "p")))
        XCTAssertEqual(deleteBody.method, "DELETE")
        XCTAssertEqual(deleteBody.body, #"{"payload":"p"}"#)
        let deleteQuery = try echo(client, SpecEndpoint("/echo", method: .delete, parameters: ["id": 7]))
        XCTAssertEqual(deleteQuery.query, "id=7")
        XCTAssertEqual(deleteQuery.body, "")
    }

    func testHead_andNoContent_decodeEmptyResponse() throws {
        let client = try makeClient()
        let head = try outcome(
            client, SpecEndpoint("/echo", method: .head), DecodableResponseSerializer<EmptyResponse>())
        XCTAssertEqual(head.value, EmptyResponse())
        XCTAssertEqual(head.statusCode, 200)
        server.route("DELETE", "/items/1", response: .empty())
        let deleted = try outcome(
            client, SpecEndpoint("/items/1", method: .delete), DecodableResponseSerializer<LoopbackSample?>())
        XCTAssertEqual(deleted.statusCode, 204)
        XCTAssertTrue(deleted.isSuccess)
        XCTAssertEqual(deleted.value ?? LoopbackSample(id: 0, name: "", tags: []), nil)
    }

    // MARK: Status codes

    func testStatus_clientAndServerErrors_areTypedWithTheirBody() throws {
        let client = try makeClient()
        let expectations: [(Int, StatusCodeFailure.Kind)] = [
            (400, .client), (401, .client), (404, .client), (500, .server), (503, .server),
        ]
        for (status, kind) in expectations {
            let response = try outcome(client, SpecEndpoint("/status/\(status)"), DataResponseSerializer())
            guard case .unacceptableStatusCode(let failure) = response.error as? LeashError else {
                XCTFail("\(status): expected unacceptableStatusCode, got \(response)")
                continue
            }
            XCTAssertEqual(failure.statusCode, status)
            XCTAssertEqual(failure.kind, kind)
            let body = try JSONDecoder().decode(ErrorBody.self, from: failure.body)
            XCTAssertEqual(body.status, status)
            XCTAssertEqual(failure.headers["Content-Type"], "application/json")
            XCTAssertEqual(failure.request?.url, server.url(path: "/status/\(status)"))
            XCTAssertEqual(response.statusCode, status)
        }
        let unauthorized = try outcome(client, SpecEndpoint("/status/401"), DataResponseSerializer())
        XCTAssertEqual((unauthorized.error as? LeashError)?.isUnauthorized, true)
    }

    func testStatus_redirectWithoutLocation_isARedirectFailure() throws {
        let response = try outcome(try makeClient(), SpecEndpoint("/status/300"), DataResponseSerializer())
        guard case .unacceptableStatusCode(let failure) = response.error as? LeashError else {
            return XCTFail("expected unacceptableStatusCode, got \(response)")
        }
        XCTAssertEqual(failure.kind, .redirect)
    }

    func testStatus_acceptableCodes_perManagerAndPerEndpoint() throws {
        let lenient = try makeClient { $0.acceptableStatusCodes(200..<500) }
        let notFound = try outcome(lenient, SpecEndpoint("/status/404"), DecodableResponseSerializer<ErrorBody>())
        XCTAssertEqual(notFound.value, ErrorBody(error: "Not Found", status: 404))
        let strict = try makeClient()
        let endpoint = SpecEndpoint("/status/503", acceptableStatusCodes: [503])
        XCTAssertEqual(try outcome(strict, endpoint, DecodableResponseSerializer<ErrorBody>()).value?.status, 503)
        let rejected = try outcome(
            strict, SpecEndpoint("/json", acceptableStatusCodes: [201]), DataResponseSerializer())
        XCTAssertEqual((rejected.error as? LeashError)?.statusCode, 200)
    }

    // MARK: Broken responses

    func testGarbage_isTransportErrorKeepingTheURLError() throws {
        let response = try outcome(try makeClient(), SpecEndpoint("/garbage"), DataResponseSerializer())
        let urlError = try XCTUnwrap(transportError(response))
        XCTAssertNotEqual(urlError.code, .cancelled)
        // The message carries what the transport said (libcurl's reason on Linux).
        let description = (response.error as? LeashError)?.description ?? ""
        XCTAssertTrue(description.contains(urlError.localizedDescription), description)
        XCTAssertTrue(description.contains("URLError \(urlError.code.rawValue)"), description)
    }

    func testCloseMidBody_isTransportErrorKeepingTheURLError() throws {
        let response = try outcome(try makeClient(), SpecEndpoint("/close-mid-body"), DataResponseSerializer())
        let urlError = try XCTUnwrap(transportError(response))
        XCTAssertNotEqual(urlError.code, .cancelled)
        let description = (response.error as? LeashError)?.description ?? ""
        XCTAssertTrue(description.contains(urlError.localizedDescription), description)
        if Manager.defaultTransport is HTTP1Transport {
            // `HTTP1Transport` names what is missing.
            XCTAssertTrue(description.contains("512 of the 1024 bytes"), description)
            XCTAssertEqual(urlError.code, .networkConnectionLost)
        } else {
            #if os(Linux)
                XCTAssertTrue(
                    description.contains("512 bytes remaining"), "libcurl names what is missing: \(description)")
            #endif
        }
    }

    func testTruncatedCustomBody_isTransportError() throws {
        server.route(
            "GET", "/partial-json",
            response: LoopbackResponse.json(Data(LoopbackServer.sampleJSON.utf8)).closingMidBody())
        let response = try outcome(
            try makeClient(), SpecEndpoint("/partial-json"), DecodableResponseSerializer<LoopbackSample>())
        XCTAssertNotNil(transportError(response))
    }

    func testServerGone_isCannotConnect() throws {
        let client = try makeClient()
        server.stop()
        let response = try outcome(client, SpecEndpoint("/json"), DataResponseSerializer())
        XCTAssertEqual(transportError(response)?.code, .cannotConnectToHost)
    }

    // MARK: Volume

    func testConcurrency_64ExecutionsAtOnce_allSucceed() throws {
        let client = try makeClient()
        let count = 64
        let values = SpecLocked<[Int]>([])
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = count
        var requests: [DataRequest] = []
        for index in 0..<count {
            let endpoint = SpecEndpoint("/echo", parameters: ["i": index])
            requests.append(
                client.execute(endpoint) { (response: Response<LoopbackServer.EchoedRequest>) in
                    if let item = response.value?.queryItems.first?.value.flatMap(Int.init) {
                        values.withLock { $0.append(item) }
                    } else {
                        XCTFail("\(response)")
                    }
                    done.fulfill()
                })
        }
        wait(for: [done], timeout: 60)
        XCTAssertEqual(values.value.sorted(), Array(0..<count))
        XCTAssertEqual(server.requestCount, count)
        XCTAssertFalse(requests.contains { $0.isCancelled })
    }

    func testLargeBodies_oneMegabyteEachWay() throws {
        let client = try makeClient()
        let size = 1 << 20
        let download = try outcome(client, SpecEndpoint("/large/\(size)"), DataResponseSerializer()).justValue()
        XCTAssertEqual(download.count, size)
        XCTAssertTrue(download.enumerated().allSatisfy { $0.element == UInt8($0.offset % 256) })
        let payload = String(repeating: "0123456789abcdef", count: size / 16)
        let echoed = try echo(client, SpecEndpoint("/echo", method: .post, parameters: Blob(payload: payload)))
        XCTAssertEqual(echoed.body?.count, size + #"{"payload":""}"#.count)
        XCTAssertEqual(echoed.body, #"{"payload":""# + payload + #""}"#)
    }
}
