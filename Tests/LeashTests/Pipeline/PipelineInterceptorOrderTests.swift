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

/// The five interceptor kinds run one after another, in the order added, each seeing its
/// stage's input, even when they call back later from other threads.
final class PipelineInterceptorOrderTests: PipelineTestCase {
    func testInterceptors_callingBackFromOtherThreads_runInOrderAddedKindByKind() throws {
        let transport = StubTransport().stub(.get, path: "/v1/users/1", .json(specAliceJSON))
        let log = PipelineLog()
        // The first interceptor answers late and the second at once: if the second one were
        // started before the first proceeded, its line would come before "… A proceeds".
        let client = try makePipelineClient(transport) {
            $0.add(interceptor: PipelineKindRecorder("A", log: log, callBack: .globalQueueAfter(0.02)))
                .add(interceptor: PipelineKindRecorder("B", log: log, callBack: .globalQueue))
        }
        let done = expectation(description: "completion")
        let received = PipelineBox<Response<SpecUser>?>(nil)
        client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in
            received.value = response
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(received.value?.value, specAlice)
        XCTAssertEqual(
            log.all,
            [
                "execution A", "execution A proceeds", "execution B", "execution B proceeds",
                "success A", "success A proceeds", "success B", "success B proceeds",
                "completion A", "completion A proceeds", "completion B", "completion B proceeds",
                "serialization A", "serialization A proceeds", "serialization B", "serialization B proceeds",
            ])
    }

    func testInterceptors_transportFailure_runFailureKindInsteadOfSuccess() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .error(.notConnectedToInternet))
        let log = PipelineLog()
        let client = try makePipelineClient(transport) {
            $0.interceptors([
                PipelineKindRecorder("A", log: log, callBack: .globalQueue),
                PipelineKindRecorder("B", log: log, callBack: .globalQueue),
            ])
        }
        let done = expectation(description: "completion")
        let received = PipelineBox<Response<SpecUser>?>(nil)
        client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in
            received.value = response
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(
            log.all.filter { !$0.hasSuffix("proceeds") },
            [
                "execution A", "execution B", "failure A", "failure B", "completion A", "completion B",
                "serialization A", "serialization B",
            ])
        guard case .transport(let urlError)? = received.value?.error as? LeashError else {
            return XCTFail("expected a transport error, got \(String(describing: received.value))")
        }
        XCTAssertEqual(urlError.code, .notConnectedToInternet)
    }

    func testInterceptors_inVirtualTime_eachWaitsForThePreviousOne() throws {
        let scheduler = TestScheduler(initialClock: 0)
        let transport = StubTransport(scheduler: scheduler)
            .stub(.get, path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let log = PipelineLog()
        let client = try makePipelineClient(transport, scheduler: scheduler) {
            $0.add(interceptor: PipelineKindRecorder("A", log: log, callBack: .virtual(scheduler, ticks: 10)))
                .add(interceptor: PipelineKindRecorder("B", log: log, callBack: .virtual(scheduler, ticks: 1)))
        }
        let observer = scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }

        // Two execution interceptors (11 ticks), the transport (5), then success,
        // completion and serialization (11 each): 200 + 11 + 5 + 33.
        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 211", "downloadProgress(23/23) @ 216",
                "responseReceived(200, 1) @ 216",
                "value(\(specAlice), network) @ 249", "completed @ 249",
            ])
        XCTAssertEqual(log.count, 16)
    }

    func testExecutionInterceptor_seesClientEndpointAndPreparedRequest_beforeAnythingIsSent() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .json(specAliceJSON))
        let seen = PipelineBox<[String]>([])
        let clientBox = PipelineBox<Client?>(nil)
        let client = try makePipelineClient(transport) {
            $0.header("X-Trace", "42").add(
                interceptor: PipelineExecutionInterceptor { chain in
                    let request = try? chain.request.convertible.asURLRequest()
                    seen.value = [
                        chain.endpoint.path,
                        request?.url?.absoluteString ?? "no URL",
                        request?.value(forHTTPHeaderField: "X-Trace") ?? "no header",
                        "attempt \(chain.attempt)",
                        "sent \(transport.requests.count)",
                        chain.client === clientBox.value ? "same client" : "other client",
                    ]
                    chain.proceed()
                })
        }
        clientBox.value = client
        let done = expectation(description: "completion")
        client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in done.fulfill() }
        wait(for: [done], timeout: 5)
        clientBox.value = nil

        XCTAssertEqual(
            seen.value,
            ["/users/1", "https://api.example.com/v1/users/1", "42", "attempt 1", "sent 0", "same client"])
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testFailureInterceptor_seesTheTransportError() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .error(.timedOut))
        let seen = PipelineBox<Swift.Error?>(nil)
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineFailureInterceptor { chain, error in
                    seen.value = error
                    chain.proceed()
                })
        }
        let done = expectation(description: "completion")
        client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in done.fulfill() }
        wait(for: [done], timeout: 5)

        guard case .transport(let urlError)? = seen.value as? LeashError else {
            return XCTFail("expected a transport error, got \(String(describing: seen.value))")
        }
        XCTAssertEqual(urlError.code, .timedOut)
    }

    func testSuccessInterceptor_seesResponseHeadAndBody_whateverTheStatus() throws {
        let transport = StubTransport().stub(
            path: "/v1/users/1",
            StubResponse(status: 404, headers: ["X-Reason": "gone"], body: Data(#"{"error":"gone"}"#.utf8)))
        let seen = PipelineBox<(Int, String?, String)?>(nil)
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineSuccessInterceptor { chain, response, data in
                    seen.value = (
                        response.statusCode, response.value(forHTTPHeaderField: "X-Reason"),
                        String(decoding: data, as: UTF8.self)
                    )
                    chain.proceed()
                })
        }
        let done = expectation(description: "completion")
        client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in done.fulfill() }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(seen.value?.0, 404)
        XCTAssertEqual(seen.value?.1, "gone")
        XCTAssertEqual(seen.value?.2, #"{"error":"gone"}"#)
    }

    func testCompletionInterceptor_seesTheDataResponseWithItsDetails() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .json(specAliceJSON, status: 201))
        let seen = PipelineBox<Response<Data>?>(nil)
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineCompletionInterceptor { chain, response in
                    seen.value = response
                    chain.proceed()
                })
        }
        let done = expectation(description: "completion")
        client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in done.fulfill() }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(seen.value?.value, Data(specAliceJSON.utf8))
        XCTAssertEqual(seen.value?.source, .network)
        XCTAssertEqual(seen.value?.statusCode, 201)
        XCTAssertEqual(seen.value?.headers["Content-Type"], "application/json")
        XCTAssertEqual(seen.value?.details?.request?.url?.path, "/v1/users/1")
    }

    func testCompletionInterceptor_seesStatusFailureAsResponse() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .text("down", status: 503))
        let seen = PipelineBox<Response<Data>?>(nil)
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineCompletionInterceptor { chain, response in
                    seen.value = response
                    chain.proceed()
                })
        }
        let done = expectation(description: "completion")
        client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in done.fulfill() }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(seen.value?.isFailure, true)
        XCTAssertEqual(seen.value?.statusCode, 503)
    }

    func testSerializationInterceptor_seesResultRawResponseAndSerializer() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .json(specAliceJSON))
        let seen = PipelineBox<(SpecUser?, Data?, String)?>(nil)
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineUserSerializationInterceptor { chain, response, result, serializer in
                    seen.value = (try? result.get(), response.value, "\(type(of: serializer))")
                    chain.proceed()
                })
        }
        let done = expectation(description: "completion")
        client.execute(PipelineEndpoint()) { (_: Response<SpecUser>) in done.fulfill() }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(seen.value?.0, specAlice)
        XCTAssertEqual(seen.value?.1, Data(specAliceJSON.utf8))
        XCTAssertEqual(seen.value?.2, "DecodableResponseSerializer<SpecUser>")
    }

    func testSerializationInterceptor_seesDecodingFailure_andCanReplaceIt() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .json(#"{"id":"one"}"#))
        let seen = PipelineBox<Swift.Error?>(nil)
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineUserSerializationInterceptor { chain, _, result, _ in
                    if case .failure(let error) = result { seen.value = error }
                    chain.complete(with: specBob)
                })
        }
        let done = expectation(description: "completion")
        let received = PipelineBox<Response<SpecUser>?>(nil)
        client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in
            received.value = response
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        guard case .decoding(let type, _, let excerpt)? = seen.value as? LeashError else {
            return XCTFail("expected a decoding error, got \(String(describing: seen.value))")
        }
        XCTAssertEqual(type, "SpecUser")
        XCTAssertEqual(excerpt, #"{"id":"one"}"#)
        XCTAssertEqual(received.value?.value, specBob)
        XCTAssertEqual(received.value?.source, .interceptor)
    }

    func testRequestThatCannotBeBuilt_skipsNetwork_completionInterceptorsSeeEncodingError() throws {
        let transport = StubTransport()
        let log = PipelineLog()
        let client = try makePipelineClient(transport) {
            $0.add(interceptor: PipelineKindRecorder("A", log: log, callBack: .inline))
        }
        let done = expectation(description: "completion")
        let received = PipelineBox<Response<SpecUser>?>(nil)
        // Neither a query nor a body parameter type.
        client.execute(PipelineEndpoint(parameters: NotAParameter())) { (response: Response<SpecUser>) in
            received.value = response
            done.fulfill()
        }
        wait(for: [done], timeout: 5)

        XCTAssertEqual(log.all.filter { !$0.hasSuffix("proceeds") }, ["completion A", "serialization A"])
        XCTAssertTrue(transport.requests.isEmpty)
        guard case .encoding(let reason, _)? = received.value?.error as? LeashError else {
            return XCTFail("expected an encoding error, got \(String(describing: received.value))")
        }
        XCTAssertTrue(reason.contains("NotAParameter"), reason)
    }
}

private struct NotAParameter {}
