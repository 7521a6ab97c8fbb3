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

/// Failure and success interceptors, and the status validation that follows them.
final class PipelineValidationTests: VirtualTimeTestCase {
    /// A new scheduler and transport, so that the next `scheduler.start` runs on a fresh clock.
    private func startOver() {
        scheduler = TestScheduler(initialClock: 0)
        transport = StubTransport(scheduler: scheduler)
    }

    private func client(configure: (Manager.Builder) -> Void = { _ in }) throws -> Client {
        try makePipelineClient(transport, scheduler: scheduler, configure: configure)
    }

    private func error(
        of endpoint: PipelineEndpoint = PipelineEndpoint(), on client: Client, file: StaticString = #filePath,
        line: UInt = #line
    ) -> LeashError? {
        let observer = scheduler.start { client.eventStream(endpoint, serializer: DataResponseSerializer()) }
        guard let error = pipelineError(observer) else {
            XCTFail("expected an error, got \(pipelineTimeline(observer))", file: file, line: line)
            return nil
        }
        guard let leashError = error as? LeashError else {
            XCTFail("expected a LeashError, got \(error)", file: file, line: line)
            return nil
        }
        return leashError
    }

    // MARK: Failure interceptors

    func testFailureInterceptor_proceeding_endsWithTypedTransportError() throws {
        transport.stub(path: "/v1/users/1", .error(.notConnectedToInternet))
        let seen = PipelineBox<Int>(0)
        let client = try client {
            $0.add(
                interceptor: PipelineFailureInterceptor { chain, _ in
                    seen.mutate { $0 += 1 }
                    chain.proceed()
                })
        }

        guard case .transport(let urlError)? = error(on: client) else { return XCTFail("expected .transport") }

        XCTAssertEqual(seen.value, 1)
        XCTAssertEqual(urlError.code, .notConnectedToInternet)
        XCTAssertTrue(
            LeashError.transport(urlError).description.contains("\(URLError.Code.notConnectedToInternet.rawValue)"))
    }

    func testFailureInterceptor_replacingError_deliversItsError() throws {
        transport.stub(path: "/v1/users/1", .error(.cannotFindHost))
        let client = try client {
            $0.add(
                interceptor: PipelineFailureInterceptor { chain, error in
                    guard case .transport(let urlError)? = error as? LeashError, urlError.code == .cannotFindHost
                    else { return chain.proceed() }
                    chain.complete(with: PipelineAppError.rejected("no host"))
                })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(pipelineError(observer) as? PipelineAppError, .rejected("no host"))
    }

    func testFailureInterceptor_recoveringWithValue_deliversInterceptorValue() throws {
        transport.stub(path: "/v1/users/1", .error(.networkConnectionLost, delay: 2))
        let client = try client {
            $0.add(
                interceptor: PipelineFailureInterceptor { chain, _ in
                    chain.complete(with: Data(specAliceJSON.utf8), extra: "offline copy")
                })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(
            pipelineTimeline(observer).suffix(2), ["value(\(specAlice), interceptor) @ 202", "completed @ 202"])
    }

    // MARK: Success interceptors

    func testSuccessInterceptor_turning200IntoError_deliversTheError() throws {
        transport.stub(path: "/v1/users/1", .json(#"{"error":"quota"}"#))
        let client = try client {
            $0.add(
                interceptor: PipelineSuccessInterceptor { chain, _, data in
                    guard let body = try? JSONDecoder().decode([String: String].self, from: data),
                        let message = body["error"]
                    else { return chain.proceed() }
                    chain.complete(with: PipelineAppError.rejected(message))
                })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(pipelineError(observer) as? PipelineAppError, .rejected("quota"))
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [])
    }

    func testSuccessInterceptor_acceptingA404_skipsStatusValidation() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, status: 404))
        let client = try client {
            $0.add(
                interceptor: PipelineSuccessInterceptor { chain, response, data in
                    // A 404 with a body is an answer in this (made-up) API.
                    guard response.statusCode == 404 else { return chain.proceed() }
                    chain.complete(with: data)
                })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertNil(pipelineError(observer))
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [specAlice])
    }

    // MARK: Default status validation

    func testStatusValidation_redirectNotFollowed_isUnacceptableRedirect() throws {
        transport.stub(path: "/v1/users/1", StubResponse(status: 302, headers: ["Location": "/elsewhere"]))
        guard case .unacceptableStatusCode(let failure)? = error(on: try client { $0.redirects(.doNotFollow) }) else {
            return XCTFail("expected .unacceptableStatusCode")
        }
        XCTAssertEqual(failure.statusCode, 302)
        XCTAssertEqual(failure.kind, .redirect)
        XCTAssertEqual(failure.headers["Location"], "/elsewhere")
    }

    func testStatusValidation_clientError_keepsStatusHeadersBodyAndRequest() throws {
        transport.stub(
            path: "/v1/users/1",
            StubResponse(
                status: 404, headers: ["Content-Type": "application/json", "X-Request-Id": "abc"],
                body: Data(#"{"error":"no such user"}"#.utf8)))
        guard case .unacceptableStatusCode(let failure)? = error(on: try client()) else {
            return XCTFail("expected .unacceptableStatusCode")
        }
        XCTAssertEqual(failure.statusCode, 404)
        XCTAssertEqual(failure.kind, .client)
        XCTAssertEqual(failure.headers["X-Request-Id"], "abc")
        XCTAssertEqual(failure.body, Data(#"{"error":"no such user"}"#.utf8))
        XCTAssertEqual(failure.request?.url?.path, "/v1/users/1")
        XCTAssertEqual(failure.response?.statusCode, 404)
        let message = LeashError.unacceptableStatusCode(failure).description
        XCTAssertTrue(message.contains("404"), message)
        XCTAssertTrue(message.contains("client error"), message)
        XCTAssertTrue(message.contains("no such user"), message)
    }

    func testStatusValidation_serverError_isUnacceptableServer() throws {
        transport.stub(path: "/v1/users/1", .text("overloaded", status: 503))
        let error = error(on: try client())
        guard case .unacceptableStatusCode(let failure)? = error else {
            return XCTFail("expected .unacceptableStatusCode")
        }
        XCTAssertEqual(failure.kind, .server)
        XCTAssertEqual(error?.statusCode, 503)
        XCTAssertEqual(failure.bodyExcerpt, "overloaded")
    }

    func testStatusValidation_informationalStatus_isUnacceptableOther() throws {
        transport.stub(path: "/v1/users/1", .status(199))
        guard case .unacceptableStatusCode(let failure)? = error(on: try client()) else {
            return XCTFail("expected .unacceptableStatusCode")
        }
        XCTAssertEqual(failure.kind, .other)
    }

    func testStatusValidation_every2xx_isAcceptedByDefault() throws {
        for status in [200, 201, 202, 203, 206, 299] {
            startOver()
            let client = try client()
            transport.stub(path: "/v1/users/1", .text("ok", status: status))
            let observer = scheduler.start {
                client.eventStream(PipelineEndpoint(), serializer: StringResponseSerializer())
            }
            XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, ["ok"], "status \(status)")
        }
    }

    func testStatusValidation_perManagerCodes_acceptA304AndRejectA201() throws {
        let client = try client { $0.acceptableStatusCodes([200, 304]) }
        transport.stub(path: "/v1/users/1", .status(304))
        let accepted = scheduler.start { client.eventStream(PipelineEndpoint(), serializer: DataResponseSerializer()) }
        XCTAssertNil(pipelineError(accepted))
        XCTAssertEqual(accepted.events.compactMap { $0.value.element?.value }, [Data()])

        startOver()
        let sameCodes = try self.client { $0.acceptableStatusCodes([200, 304]) }
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, status: 201))
        guard case .unacceptableStatusCode(let failure)? = error(on: sameCodes) else {
            return XCTFail("expected .unacceptableStatusCode")
        }
        XCTAssertEqual(failure.statusCode, 201)
        XCTAssertEqual(failure.kind, .other)
    }

    func testStatusValidation_perEndpointCodes_overrideTheManagers() throws {
        let client = try client { $0.acceptableStatusCodes(200..<300) }
        transport.stub(path: "/v1/users/1", .text("teapot", status: 418))
        let accepting = PipelineEndpoint(acceptableStatusCodes: [418])
        let observer = scheduler.start { client.eventStream(accepting, serializer: StringResponseSerializer()) }
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, ["teapot"])

        startOver()
        let sameCodes = try self.client { $0.acceptableStatusCodes(200..<300) }
        transport.stub(path: "/v1/users/1", .text("ok", status: 200))
        let strict = PipelineEndpoint(acceptableStatusCodes: [201])
        guard case .unacceptableStatusCode(let failure)? = error(of: strict, on: sameCodes) else {
            return XCTFail("expected .unacceptableStatusCode")
        }
        XCTAssertEqual(failure.statusCode, 200)
    }

    func testStatusValidation_failure_reachesCompletionInterceptors_whichCanRecover() throws {
        transport.stub(path: "/v1/users/1", .status(500))
        let client = try client {
            $0.add(
                interceptor: PipelineCompletionInterceptor { chain, response in
                    guard (response.error as? LeashError)?.statusCode == 500 else { return chain.proceed() }
                    chain.complete(with: Data(specBobJSON.utf8))
                })
        }

        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [specBob])
        XCTAssertNil(pipelineError(observer))
    }
}
