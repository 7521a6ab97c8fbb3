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

/// What `proceed()`, `complete(…, finish:)` and the first-decision rule do, stage by stage.
final class PipelineInterceptorDecisionTests: PipelineTestCase {
    private var scheduler: TestScheduler!
    private var transport: StubTransport!
    private var log: PipelineLog!

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0)
        transport = StubTransport(scheduler: scheduler)
        log = PipelineLog()
    }

    override func tearDown() {
        scheduler = nil
        transport = nil
        log = nil
        super.tearDown()
    }

    private func client(_ interceptors: [Interceptor]) throws -> Client {
        try makePipelineClient(transport, scheduler: scheduler) { $0.interceptors(interceptors) }
    }

    private func run(_ client: Client) -> TestableObserver<ExecutionEvent<SpecUser>> {
        scheduler.start { client.eventStream(PipelineEndpoint(), as: SpecUser.self) }
    }

    // MARK: Execution stage

    func testExecution_completeWithFinishTrue_skipsLaterInterceptorsAndNetwork() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON))
        let client = try client([
            PipelineExecutionInterceptor { chain in chain.complete(with: Data(specAliceJSON.utf8)) },
            PipelineKindRecorder("B", log: log, callBack: .inline),
        ])

        let observer = run(client)

        XCTAssertEqual(
            pipelineTimeline(observer),
            ["requestPrepared(1) @ 200", "value(\(specAlice), interceptor) @ 200", "completed @ 200"])
        XCTAssertTrue(transport.requests.isEmpty)
        // B's execution, success and failure kinds never ran; its later kinds did.
        XCTAssertEqual(log.all.filter { !$0.hasSuffix("proceeds") }, ["completion B", "serialization B"])
    }

    func testExecution_completeWithFinishFalse_emitsCachedThenNetworkValue() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON, delay: 3))
        let client = try client([
            PipelineExecutionInterceptor { chain in
                chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                chain.proceed()
            }
        ])

        let observer = run(client)

        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "value(\(specAlice), interceptor) @ 200", "requestSent(1) @ 200",
                "downloadProgress(21/21) @ 203", "responseReceived(200, 1) @ 203", "value(\(specBob), network) @ 203",
                "completed @ 203",
            ])
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testExecution_completeWithFinishFalse_callbackReceivesCachedThenNetworkResponse() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON, delay: 3))
        let client = try client([
            PipelineExecutionInterceptor { chain in
                chain.complete(with: Data(specAliceJSON.utf8), extra: "from cache", finish: false)
                chain.proceed()
            }
        ])
        let received = PipelineBox<[Response<SpecUser>]>([])

        client.execute(PipelineEndpoint()) { (response: Response<SpecUser>) in
            received.mutate { $0.append(response) }
        }
        XCTAssertEqual(received.value.map(\.value), [specAlice], "the cached value comes at once")
        scheduler.start()

        XCTAssertEqual(received.value.map(\.value), [specAlice, specBob])
        XCTAssertEqual(received.value.map(\.source), [.interceptor, .network])
        XCTAssertEqual(received.value.first?.details?.interceptorExtra as? String, "from cache")
        XCTAssertEqual(received.value.last?.statusCode, 200)
    }

    func testExecution_finishFalseThenFinishTrue_emitsBothAndSkipsNetwork() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON))
        let client = try client([
            PipelineExecutionInterceptor { chain in
                chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                chain.complete(with: Data(specBobJSON.utf8), finish: true)
            }
        ])

        let observer = run(client)

        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "value(\(specAlice), interceptor) @ 200",
                "value(\(specBob), interceptor) @ 200", "completed @ 200",
            ])
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testExecution_completeWithResponse_passesTheResponseOn() throws {
        let client = try client([
            PipelineExecutionInterceptor { chain in
                chain.complete(with: Response<Data>.failure(PipelineAppError.rejected("offline")))
            }
        ])

        let observer = run(client)

        XCTAssertEqual(pipelineError(observer) as? PipelineAppError, .rejected("offline"))
        XCTAssertTrue(transport.requests.isEmpty)
    }

    // MARK: The first decision counts

    func testChain_onlyTheFirstDecisionCounts() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON))
        let client = try client([
            PipelineExecutionInterceptor { chain in
                chain.complete(with: Data(specAliceJSON.utf8))
                chain.proceed()
                chain.complete(with: PipelineAppError.rejected("late"))
                try? chain.retry()
                chain.complete(with: Data(specBobJSON.utf8), finish: false)
            },
            PipelineKindRecorder("B", log: log, callBack: .inline),
        ])

        let observer = run(client)

        XCTAssertEqual(
            pipelineTimeline(observer),
            ["requestPrepared(1) @ 200", "value(\(specAlice), interceptor) @ 200", "completed @ 200"])
        XCTAssertTrue(transport.requests.isEmpty)
        XCTAssertFalse(log.all.contains("execution B"))
    }

    func testChain_proceedTwice_runsTheNextInterceptorAndNetworkOnce() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try client([
            PipelineExecutionInterceptor { chain in
                chain.proceed()
                chain.proceed()
            },
            PipelineKindRecorder("B", log: log, callBack: .inline),
        ])

        let observer = run(client)

        XCTAssertEqual(observer.events.compactMap { $0.value.element?.value }, [specAlice])
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(log.all.filter { $0 == "execution B" }.count, 1)
    }

    func testChain_decisionsRacingFromManyThreads_exactlyOneCounts() throws {
        let transport = StubTransport().stub(path: "/v1/users/1", .json(specBobJSON))
        let client = try makePipelineClient(transport) {
            $0.add(
                interceptor: PipelineExecutionInterceptor { chain in
                    DispatchQueue.concurrentPerform(iterations: 8) { index in
                        if index % 2 == 0 {
                            chain.complete(with: Data(specAliceJSON.utf8))
                        } else {
                            chain.proceed()
                        }
                    }
                })
        }
        for _ in 0..<50 {
            let done = expectation(description: "completed")
            let values = PipelineBox<[SpecUser]>([])
            _ = client.eventStream(PipelineEndpoint(), as: SpecUser.self)
                .subscribe(
                    onNext: { event in if let value = event.value { values.mutate { $0.append(value) } } },
                    onError: { XCTFail("unexpected \($0)") },
                    onCompleted: { done.fulfill() })
            wait(for: [done], timeout: 5)
            XCTAssertEqual(values.value.count, 1, "one decision, one value")
        }
    }

    // MARK: Success stage

    func testSuccess_completeWithFinishTrue_skipsLaterSuccessInterceptorsAndStatusValidation() throws {
        transport.stub(path: "/v1/users/1", .text("not here", status: 404))
        let client = try client([
            PipelineSuccessInterceptor { chain, _, _ in chain.complete(with: Data(specAliceJSON.utf8)) },
            PipelineKindRecorder("B", log: log, callBack: .inline),
        ])

        let observer = run(client)

        XCTAssertEqual(
            observer.events.compactMap { $0.value.element.map(pipelineName) }.last,
            "value(\(specAlice), interceptor)")
        XCTAssertNil(pipelineError(observer))
        XCTAssertFalse(log.all.contains("success B"))
        XCTAssertTrue(log.all.contains("completion B"))
    }

    func testSuccess_completeWithFinishFalse_emitsValueThenCarriesOnToValidation() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON))
        let client = try client([
            PipelineSuccessInterceptor { chain, _, _ in
                chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                chain.proceed()
            }
        ])

        let observer = run(client)

        XCTAssertEqual(
            observer.events.compactMap { $0.value.element.flatMap { $0.value } }, [specAlice, specBob])
        XCTAssertEqual(observer.events.last?.value.isCompleted, true)
    }

    // MARK: Failure stage

    func testFailure_completeWithFinishTrue_skipsLaterFailureInterceptors() throws {
        transport.stub(path: "/v1/users/1", .error(.notConnectedToInternet))
        let client = try client([
            PipelineFailureInterceptor { chain, _ in chain.complete(with: Data(specAliceJSON.utf8)) },
            PipelineKindRecorder("B", log: log, callBack: .inline),
        ])

        let observer = run(client)

        XCTAssertEqual(
            pipelineTimeline(observer),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "value(\(specAlice), interceptor) @ 200",
                "completed @ 200",
            ])
        XCTAssertFalse(log.all.contains("failure B"))
    }

    // MARK: Completion stage

    func testCompletion_completeWithFinishTrue_skipsLaterCompletionInterceptors() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try client([
            PipelineCompletionInterceptor { chain, _ in chain.complete(with: PipelineAppError.rejected("policy")) },
            PipelineKindRecorder("B", log: log, callBack: .inline),
        ])

        let observer = run(client)

        XCTAssertEqual(pipelineError(observer) as? PipelineAppError, .rejected("policy"))
        XCTAssertFalse(log.all.contains("completion B"))
        // The serialization interceptors still see the outcome.
        XCTAssertTrue(log.all.contains("serialization B"))
    }

    func testCompletion_completeWithFinishFalse_emitsExtraValueBeforeTheNetworkOne() throws {
        transport.stub(path: "/v1/users/1", .json(specBobJSON))
        let client = try client([
            PipelineCompletionInterceptor { chain, _ in
                chain.complete(with: Data(specAliceJSON.utf8), finish: false)
                chain.proceed()
            }
        ])

        let observer = run(client)

        XCTAssertEqual(
            observer.events.compactMap { $0.value.element.map(pipelineName) }.suffix(2),
            ["value(\(specAlice), interceptor)", "value(\(specBob), network)"])
    }

    // MARK: Serialization stage

    func testSerialization_completeWithFinishTrue_skipsLaterSerializationInterceptors() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try client([
            PipelineUserSerializationInterceptor { chain, _, _, _ in chain.complete(with: specBob) },
            PipelineKindRecorder("B", log: log, callBack: .inline),
        ])

        let observer = run(client)

        XCTAssertEqual(
            observer.events.compactMap { $0.value.element.map(pipelineName) }.last,
            "value(\(specBob), interceptor)")
        XCTAssertFalse(log.all.contains("serialization B"))
    }

    func testSerialization_completeWithFinishFalse_emitsBothValues() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON))
        let client = try client([
            PipelineUserSerializationInterceptor { chain, _, _, _ in
                chain.complete(with: specBob, finish: false)
                chain.proceed()
            }
        ])

        let observer = run(client)

        XCTAssertEqual(
            observer.events.compactMap { $0.value.element.flatMap { $0.value } }, [specBob, specAlice])
    }
}
