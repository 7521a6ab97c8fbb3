import Dispatch
import Foundation
import Leash
import LeashInterceptors
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries an attempt that failed, once.
private final class RetryFailureOnce: CompletionInterceptor, Sendable {
    func intercept(chain: InterceptorChain<Data>, response: Response<Data>) {
        if chain.attempt == 1, response.isFailure, (try? chain.retry()) != nil { return }
        chain.proceed()
    }
}

/// Leash's original subclassing shape.
private final class APICache: CacheInterceptor, @unchecked Sendable {
    // @unchecked: adds no state to `CacheInterceptor`.
    init(dataStore: DataStore) {
        super.init(dataStore: dataStore)
        register(policy: CachePolicy.CacheAndRenew(), to: "/expenses/[0-9]+")
        register(policy: CachePolicy.CacheOnlyOnError(), to: "/expenses")
    }
}

/// Leash's original two-method store, which still conforms.
private final class DataPersistor: DataStore {
    func data(for key: CacheKey) -> Data? { nil }
    func save(_ data: Data, for key: CacheKey) {}
}

final class CacheInterceptorTests: CacheSpecStubTestCase {
    private var store: InMemoryDataStore!
    private let endpoint = CacheSpecEndpoint("/expenses/1")
    private let stubPath = "/v1/expenses/1"

    override func setUp() {
        super.setUp()
        store = InMemoryDataStore()
    }

    override func tearDown() {
        store = nil
        super.tearDown()
    }

    private var key: CacheKey {
        CacheKey(method: "GET", location: "\(cacheSpecBaseURL)/expenses/1")
    }

    private func cache(_ policy: CachingPolicy, to pattern: PathPattern = "/expenses/[0-9]+") -> CacheInterceptor {
        let cache = CacheInterceptor(dataStore: store)
        cache.register(policy: policy, to: pattern)
        return cache
    }

    /// Runs one execution to its end at once (stubs without delay answer synchronously).
    private func runNow(_ client: Client, _ endpoint: Endpoint? = nil) -> (
        responses: [Response<CacheSpecExpense>], error: Swift.Error?
    ) {
        cacheSpecRun(client, endpoint ?? self.endpoint, as: CacheSpecExpense.self)
    }

    private func runVirtual(_ client: Client) -> TestableObserver<ExecutionEvent<CacheSpecExpense>> {
        let endpoint = self.endpoint
        return scheduler.start { client.eventStream(endpoint, as: CacheSpecExpense.self) }
    }

    // MARK: CacheAndRenew

    func testCacheAndRenew_cachedValueFirstMarkedCached_thenNetworkValue_thenCompletion() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .json(cacheSpecNewJSON, delay: 3))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew())])
        XCTAssertEqual(runNow(client).responses.map(\.source), [.network], "nothing cached yet: the network only")
        XCTAssertEqual(store.data(for: key), Data(cacheSpecOldJSON.utf8))

        let observer = runVirtual(client)

        XCTAssertEqual(
            cacheSpecTimeline(observer),
            [
                "requestPrepared @ 200", "value(\(cacheSpecOld), cache) @ 200", "requestSent @ 200",
                "responseReceived(200) @ 203", "value(\(cacheSpecNew), network) @ 203", "completed @ 203",
            ])
        let cached = try XCTUnwrap(observer.events.first { $0.value.element?.value != nil }?.value.element?.response)
        XCTAssertEqual(cached.data, Data(cacheSpecOldJSON.utf8))
        XCTAssertEqual(cached.details?.interceptorExtra as? CacheKey, key)
        XCTAssertNil(cached.statusCode, "a cached value has no HTTP response")
        XCTAssertEqual(store.data(for: key), Data(cacheSpecNewJSON.utf8), "the fresh body replaced the old one")
    }

    func testCacheAndRenew_callbackForm_receivesCachedThenNetworkResponse() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .json(cacheSpecNewJSON, delay: 3))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew())])
        _ = runNow(client)
        let received = CacheSpecList<Response<CacheSpecExpense>>()

        client.execute(endpoint) { (response: Response<CacheSpecExpense>) in received.append(response) }
        XCTAssertEqual(received.all.map(\.value), [cacheSpecOld], "the cached value comes at once")
        scheduler.start()

        XCTAssertEqual(received.all.map(\.value), [cacheSpecOld, cacheSpecNew])
        XCTAssertEqual(received.all.map(\.source), [.cache, .network])
    }

    func testCacheAndRenew_networkFailsAfterCachedValue_failsAfterIt() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .error(.notConnectedToInternet, delay: 2))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew())])
        _ = runNow(client)

        let timeline = cacheSpecTimeline(runVirtual(client))

        XCTAssertEqual(timeline.filter { $0.hasPrefix("value") }, ["value(\(cacheSpecOld), cache) @ 200"])
        XCTAssertTrue(
            timeline.last?.hasPrefix("error(") == true && timeline.last?.hasSuffix("@ 202") == true, "\(timeline)")
        XCTAssertEqual(store.data(for: key), Data(cacheSpecOldJSON.utf8), "the stored body stays")
    }

    func testCacheAndRenew_retry_doesNotAnswerFromTheCacheAgain() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .error(.networkConnectionLost), .json(cacheSpecNewJSON))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew()), RetryFailureOnce()])
        _ = runNow(client)

        let run = runNow(client)

        XCTAssertNil(run.error)
        XCTAssertEqual(run.responses.map(\.value), [cacheSpecOld, cacheSpecNew])
        XCTAssertEqual(run.responses.map(\.source), [.cache, .network])
        XCTAssertEqual(transport.requests.count, 3)
    }

    // MARK: CacheOnlyOnError

    func testCacheOnlyOnError_transportFailure_answersFromTheCacheMarkedCached() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .error(.notConnectedToInternet))
        let client = try makeClient([cache(CachePolicy.CacheOnlyOnError())])
        XCTAssertEqual(runNow(client).responses.map(\.source), [.network])

        let run = runNow(client)

        XCTAssertNil(run.error)
        XCTAssertEqual(run.responses.map(\.value), [cacheSpecOld])
        XCTAssertEqual(run.responses.map(\.source), [.cache])
        XCTAssertEqual(transport.requests.count, 2, "the network was tried first")
    }

    func testCacheOnlyOnError_success_isTheNetworkValueAndRenewsTheStore() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .json(cacheSpecNewJSON))
        let client = try makeClient([cache(CachePolicy.CacheOnlyOnError())])
        _ = runNow(client)

        let run = runNow(client)

        XCTAssertEqual(run.responses.map(\.value), [cacheSpecNew])
        XCTAssertEqual(run.responses.map(\.source), [.network])
        XCTAssertEqual(store.data(for: key), Data(cacheSpecNewJSON.utf8))
    }

    func testCacheOnlyOnError_nothingStored_failureReachesTheCaller() throws {
        transport.stub(path: stubPath, .error(.notConnectedToInternet))
        let client = try makeClient([cache(CachePolicy.CacheOnlyOnError())])

        let run = runNow(client)

        XCTAssertTrue(run.responses.isEmpty)
        guard case .transport(let urlError)? = run.error as? LeashError else {
            return XCTFail("expected the transport error, got \(String(describing: run.error))")
        }
        XCTAssertEqual(urlError.code, .notConnectedToInternet)
    }

    func testCacheOnlyOnError_serverErrorIsAnsweredFromCache_clientErrorIsNot() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .status(503), .status(404))
        let client = try makeClient([cache(CachePolicy.CacheOnlyOnError())])
        _ = runNow(client)

        let serverError = runNow(client)
        let clientError = runNow(client)

        XCTAssertEqual(serverError.responses.map(\.source), [.cache])
        XCTAssertNil(serverError.error)
        XCTAssertTrue(clientError.responses.isEmpty)
        XCTAssertEqual((clientError.error as? LeashError)?.statusCode, 404)
    }

    func testCacheOnlyOnError_withoutServerErrors_lets503Through() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .status(503))
        let client = try makeClient([cache(CachePolicy.CacheOnlyOnError(includingServerErrors: false))])
        _ = runNow(client)

        XCTAssertEqual((runNow(client).error as? LeashError)?.statusCode, 503)
    }

    func testCacheOnlyOnError_appErrorFromAnInterceptor_isNotAnsweredFromCache() throws {
        struct Rejected: Error {}
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .json(#"{"code":"x","message":"y"}"#, status: 500))
        struct APIError: Decodable, Error {
            let code: String
        }
        let client = try makeClient([BodyValidator<APIError>(), cache(CachePolicy.CacheOnlyOnError())])
        _ = runNow(client)

        XCTAssertEqual((runNow(client).error as? APIError)?.code, "x")
    }

    // MARK: CacheElseNetwork

    func testCacheElseNetwork_storedBodySkipsTheNetwork() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .json(cacheSpecNewJSON))
        let client = try makeClient([cache(CachePolicy.CacheElseNetwork())])
        XCTAssertEqual(runNow(client).responses.map(\.source), [.network])

        let run = runNow(client)

        XCTAssertEqual(run.responses.map(\.value), [cacheSpecOld])
        XCTAssertEqual(run.responses.map(\.source), [.cache])
        XCTAssertEqual(transport.requests.count, 1)
    }

    // MARK: What is stored

    func testOnlySuccessfulBodiesThatSerialize_areStored() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON, status: 404), .json("not json"))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew())])
        let accepting404 = CacheSpecEndpoint("/expenses/1", acceptableStatusCodes: Set(200..<500))

        XCTAssertEqual(runNow(client, accepting404).responses.map(\.value), [cacheSpecOld], "a 404 accepted as a value")
        XCTAssertNil(store.data(for: key), "but not stored: not 2xx")
        guard case .decoding? = runNow(client).error as? LeashError else { return XCTFail("expected decoding error") }
        XCTAssertNil(store.data(for: key), "a body the app cannot decode is not stored")
    }

    func testOtherMethods_areNeitherStoredNorAnswered() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew())])
        let post = CacheSpecEndpoint("/expenses/1", method: .post)

        _ = runNow(client, post)
        let second = runNow(client, post)

        XCTAssertEqual(store.count, 0)
        XCTAssertEqual(second.responses.map(\.source), [.network])
    }

    func testUnregisteredPaths_areUntouched() throws {
        transport.stub(path: "/v1/reports", .json(cacheSpecOldJSON))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew())])

        XCTAssertEqual(runNow(client, CacheSpecEndpoint("/reports")).responses.map(\.source), [.network])
        XCTAssertEqual(store.count, 0)
    }

    func testQueryInAnotherOrder_hitsTheSameEntry() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .error(.timedOut))
        let client = try makeClient([cache(CachePolicy.CacheOnlyOnError())])
        _ = runNow(client, CacheSpecEndpoint("/expenses/1?b=2&a=1"))

        let run = runNow(client, CacheSpecEndpoint("/expenses/1?a=1&b=2"))

        XCTAssertEqual(run.responses.map(\.source), [.cache])
        XCTAssertEqual(store.count, 1)
    }

    // MARK: Policies and patterns

    func testFirstRegisteredMatchingPattern_decides() {
        let cache = CacheInterceptor(dataStore: store)
        cache.register(policy: CachePolicy.CacheOnlyOnError(), to: "/expenses/1")
        cache.register(policy: CachePolicy.CacheAndRenew(), to: "/expenses/.*")

        XCTAssertTrue(cache.policy(for: CacheSpecEndpoint("/expenses/1")) is CachePolicy.CacheOnlyOnError)
        XCTAssertTrue(cache.policy(for: CacheSpecEndpoint("/expenses/2")) is CachePolicy.CacheAndRenew)
        XCTAssertTrue(cache.policy(for: CacheSpecEndpoint("expenses/2?x=1")) is CachePolicy.CacheAndRenew)
        XCTAssertNil(cache.policy(for: CacheSpecEndpoint("/reports")))
        cache.removeAllPolicies()
        XCTAssertNil(cache.policy(for: CacheSpecEndpoint("/expenses/1")))
    }

    func testMalformedPattern_neverMatchesAndNeverCrashes() throws {
        transport.stub(path: stubPath, .json(cacheSpecOldJSON))
        let client = try makeClient([cache(CachePolicy.CacheAndRenew(), to: "/expenses/[0-9")])

        XCTAssertEqual(runNow(client).responses.map(\.value), [cacheSpecOld])
        XCTAssertEqual(store.count, 0)
    }

    func testRuntimePattern_throwsItsError() {
        let cache = CacheInterceptor(dataStore: store)
        let userPattern = "/expenses/(1|2)"
        XCTAssertThrowsError(try cache.register(policy: CachePolicy.CacheAndRenew(), to: PathPattern(userPattern)))
        XCTAssertNil(cache.policy(for: CacheSpecEndpoint("/expenses/1")))
    }

    func testLeashsSubclassShape_registersInItsInitializer() throws {
        let cache = APICache(dataStore: store)
        XCTAssertTrue(cache.policy(for: CacheSpecEndpoint("/expenses/7")) is CachePolicy.CacheAndRenew)
        XCTAssertTrue(cache.policy(for: CacheSpecEndpoint("/expenses")) is CachePolicy.CacheOnlyOnError)
        let persisting = APICache(dataStore: DataPersistor())
        transport.stub(path: stubPath, .json(cacheSpecOldJSON))
        XCTAssertEqual(runNow(try makeClient([persisting])).responses.map(\.source), [.network])
    }

    // MARK: Stores behind the interceptor

    func testDiskStore_answersANewInterceptorAfterARestart() throws {
        let directory = try cacheSpecTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        transport.stub(path: stubPath, .json(cacheSpecOldJSON), .error(.notConnectedToInternet))
        let before = CacheInterceptor(dataStore: DiskDataStore(directory: directory))
        before.register(policy: CachePolicy.CacheOnlyOnError(), to: "/expenses/[0-9]+")
        _ = runNow(try makeClient([before]))

        let after = CacheInterceptor(dataStore: DiskDataStore(directory: directory))
        after.register(policy: CachePolicy.CacheOnlyOnError(), to: "/expenses/[0-9]+")
        let run = runNow(try makeClient([after]))

        XCTAssertEqual(run.responses.map(\.value), [cacheSpecOld])
        XCTAssertEqual(run.responses.map(\.source), [.cache])
    }

    func testConcurrentExecutions_shareTheStoreSafely() throws {
        let background = StubTransport()
        background.stub(matching: { _ in true }, [.json(cacheSpecNewJSON, delay: 0.001)])
        let cache = cache(CachePolicy.CacheAndRenew(), to: "/expenses/[0-9]+")
        let client = Client(
            manager: try Manager.Builder().url(cacheSpecBaseURL).transport(background).add(interceptor: cache).build())
        let done = expectation(description: "all executions")
        done.expectedFulfillmentCount = 40
        let lastSources = CacheSpecList<ResponseSource?>()
        let subscriptions = CacheSpecList<Disposable>()

        // Forty executions started from many threads at once, over four keys: reads,
        // writes and cached answers of one store race each other.
        DispatchQueue.concurrentPerform(iterations: 40) { index in
            let values = CacheSpecList<Response<CacheSpecExpense>>()
            let subscription = client.eventStream(
                CacheSpecEndpoint("/expenses/\(index % 4)"), as: CacheSpecExpense.self
            )
            .subscribe(
                onNext: { event in event.response.map(values.append) },
                onError: { error in
                    XCTFail("\(error)")
                    done.fulfill()
                },
                onCompleted: {
                    lastSources.append(values.all.last?.source)
                    done.fulfill()
                })
            subscriptions.append(subscription)
        }
        wait(for: [done], timeout: 10)
        subscriptions.all.forEach { $0.dispose() }

        XCTAssertEqual(lastSources.all.count, 40)
        XCTAssertTrue(lastSources.all.allSatisfy { $0 == .network }, "the last value is the network's")
        XCTAssertEqual(store.count, 4)
    }
}
