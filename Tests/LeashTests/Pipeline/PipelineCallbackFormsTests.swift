import Dispatch
import Foundation
import Leash
import LeashTesting
import Rx
import RxTesting
import LeashTestSupport
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The callback and async forms: each subscribes to the same execution stream.
final class PipelineCallbackFormsTests: RealTimeStubTestCase {
    /// Runs `execute` and waits for its first callback.
    private func firstCallback<Value>(
        _ execute: (@escaping (Value) -> Void) -> Void, file: StaticString = #filePath, line: UInt = #line
    ) -> Value? {
        let done = expectation(description: "callback")
        done.assertForOverFulfill = false
        let received = PipelineBox<Value?>(nil)
        execute { value in
            if received.value == nil { received.value = value }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        return received.value
    }

    // MARK: Response and Result

    func testExecute_responseCallback_givesValueAndNetworkDetails() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in done(response) }
        }

        XCTAssertEqual(response?.value, specAlice)
        XCTAssertEqual(try response?.justValue(), specAlice)
        XCTAssertEqual(response?.isSuccess, true)
        XCTAssertEqual(response?.source, .network)
        XCTAssertEqual(response?.statusCode, 200)
        XCTAssertEqual(response?.headers["Content-Type"], "application/json")
        XCTAssertEqual(response?.data, Data(specAliceJSON.utf8))
    }

    func testExecute_responseCallback_failureCarriesTheTypedError() throws {
        transport.stub(.get, path: "/v1/users/1", .json(#"{"error":"nope"}"#, status: 403))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in done(response) }
        }

        XCTAssertEqual(response?.isFailure, true)
        XCTAssertNil(response?.value)
        XCTAssertEqual(response?.statusCode, 403)
        XCTAssertThrowsError(try response?.justValue()) { error in
            guard case .unacceptableStatusCode(let failure) = error as? LeashError else {
                return XCTFail("expected .unacceptableStatusCode, got \(error)")
            }
            XCTAssertEqual(failure.kind, .client)
            XCTAssertEqual(failure.bodyExcerpt, #"{"error":"nope"}"#)
        }
    }

    func testExecute_responsesResult_success() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let client = try client()

        let result = firstCallback { done in
            client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in done(response.result) }
        }

        XCTAssertEqual(try result?.get(), specAlice)
    }

    func testExecute_responsesResult_failure() throws {
        transport.stub(.get, path: "/v1/users/1", .error(.notConnectedToInternet))
        let client = try client()

        let result = firstCallback { done in
            client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in done(response.result) }
        }

        guard case .failure(let error) = result, case .transport(let urlError) = error as? LeashError else {
            return XCTFail("expected a transport failure, got \(String(describing: result))")
        }
        XCTAssertEqual(urlError.code, .notConnectedToInternet)
    }

    func testExecute_typedEndpoint_infersTheResponseType() throws {
        transport.stub(.get, path: "/v1/users/2", .json(specBobJSON))
        let client = try client()

        let response = firstCallback { done in
            // No type annotation: `PipelineGetUser.Response` decides.
            client.execute(PipelineGetUser(id: 2)) { response in done(response) }
        }

        XCTAssertEqual(response?.value, specBob)
    }

    // MARK: Serializers

    func testExecute_dataSerializer_givesTheRawBody() throws {
        transport.stub(.get, path: "/v1/users/1", .text("raw bytes"))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint(), serializer: DataResponseSerializer()) { done($0) }
        }

        XCTAssertEqual(response?.value, Data("raw bytes".utf8))
    }

    func testExecute_stringSerializer_givesTheBodyAsText() throws {
        transport.stub(.get, path: "/v1/users/1", .text("héllo"))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint(), serializer: StringResponseSerializer()) { done($0) }
        }

        XCTAssertEqual(response?.value, "héllo")
    }

    func testExecute_stringSerializer_invalidText_isSerializationError() throws {
        transport.stub(.get, path: "/v1/users/1", StubResponse(body: Data([0xFF, 0xFE, 0xFD])))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint(), serializer: StringResponseSerializer()) { done($0) }
        }

        guard case .serialization(let reason, _)? = response?.error as? LeashError else {
            return XCTFail("expected .serialization, got \(String(describing: response))")
        }
        XCTAssertTrue(reason.contains("not valid"), reason)
    }

    func testExecute_jsonSerializer_givesTheParsedObject() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint(), serializer: JSONResponseSerializer()) { done($0) }
        }

        let object = response?.value as? [String: Any]
        XCTAssertEqual(object?["name"] as? String, "Alice")
        XCTAssertEqual(object?["id"] as? Int, 1)
    }

    func testExecute_jsonSerializer_garbage_isDecodingErrorWithExcerpt() throws {
        transport.stub(.get, path: "/v1/users/1", .text("<html>oops</html>"))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint(), serializer: JSONResponseSerializer()) { done($0) }
        }

        guard case .decoding(let type, _, let excerpt)? = response?.error as? LeashError else {
            return XCTFail("expected .decoding, got \(String(describing: response))")
        }
        XCTAssertEqual(type, "JSON")
        XCTAssertEqual(excerpt, "<html>oops</html>")
    }

    func testExecute_emptySerializer_acceptsA204() throws {
        transport.stub(.delete, path: "/v1/users/1", .empty())
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint(method: .delete), serializer: EmptyResponseSerializer()) { done($0) }
        }

        XCTAssertEqual(response?.value, EmptyResponse())
        XCTAssertEqual(response?.statusCode, 204)
    }

    func testExecute_customSerializerThrowingItsOwnError_isSerializationErrorKeepingTheCause() throws {
        transport.stub(.get, path: "/v1/users/1", .text("42"))
        let client = try client()

        let response = firstCallback { done in
            client.execute(PipelineEndpoint(), serializer: RejectingSerializer()) { done($0) }
        }

        guard case .serialization(let reason, let underlying)? = response?.error as? LeashError else {
            return XCTFail("expected .serialization, got \(String(describing: response))")
        }
        XCTAssertTrue(reason.contains("RejectingSerializer"), reason)
        XCTAssertEqual(underlying as? PipelineAppError, .rejected("42"))
    }

    // MARK: Where callbacks run

    func testExecute_queueArgument_deliversOnThatQueue() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let client = try client()
        let (queue, key) = Self.markedQueue("argument")

        let mark = firstCallback { done in
            client.execute(PipelineEndpoint(), queue: queue) { (_: Response<SpecUser>) in
                done(DispatchQueue.getSpecific(key: key))
            }
        }

        XCTAssertEqual(mark, "argument")
    }

    func testExecute_managerCallbackQueue_deliversOnIt() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let (queue, key) = Self.markedQueue("manager")
        let client = try client { $0.callbackQueue(queue) }

        let mark = firstCallback { done in
            client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in
                done(DispatchQueue.getSpecific(key: key))
            }
        }

        XCTAssertEqual(mark, "manager")
    }

    func testExecute_queueArgument_winsOverTheManagers() throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let (managerQueue, key) = Self.markedQueue("manager")
        let callQueue = DispatchQueue(label: "call")
        callQueue.setSpecific(key: key, value: "call")
        let client = try client { $0.callbackQueue(managerQueue) }

        let mark = firstCallback { done in
            client.execute(PipelineEndpoint(), queue: callQueue) { (_: Response<SpecUser>) in
                done(DispatchQueue.getSpecific(key: key))
            }
        }

        XCTAssertEqual(mark, "call")
    }

    // MARK: async/await

    func testAsyncExecute_returnsTheDecodedValue() async throws {
        transport.stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let client = try client()

        let user = try await client.execute(PipelineEndpoint(), as: SpecUser.self)

        XCTAssertEqual(user, specAlice)
    }

    func testAsyncExecute_typedEndpoint_infersTheType() async throws {
        transport.stub(.get, path: "/v1/users/2", .json(specBobJSON))
        let client = try client()

        let user = try await client.execute(PipelineGetUser(id: 2))

        XCTAssertEqual(user, specBob)
    }

    func testAsyncExecute_customSerializer() async throws {
        transport.stub(.get, path: "/v1/users/1", .text("plain"))
        let client = try client()

        let text = try await client.execute(PipelineEndpoint(), serializer: StringResponseSerializer())

        XCTAssertEqual(text, "plain")
    }

    func testAsyncExecute_failure_throwsTheTypedError() async throws {
        transport.stub(.get, path: "/v1/users/1", .status(500))
        let client = try client()

        do {
            _ = try await client.execute(PipelineEndpoint(), as: SpecUser.self)
            XCTFail("expected an error")
        } catch let error as LeashError {
            XCTAssertEqual(error.statusCode, 500)
        }
    }
}

private struct RejectingSerializer: ResponseSerializer {
    func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws -> Int {
        throw PipelineAppError.rejected(String(decoding: data ?? Data(), as: UTF8.self))
    }
}
