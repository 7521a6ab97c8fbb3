import Foundation
import Leash
import LeashInterceptors
import LeashTestSupport
import LoopbackServer
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The cache against a real server on 127.0.0.1, over the default `URLSessionTransport`.
final class CacheIntegrationTests: LoopbackIntegrationCase {
    private let endpoint = CacheSpecEndpoint("/expenses/1")

    private func makeCachingClient(
        _ policy: CachingPolicy, store: DataStore = InMemoryDataStore()
    ) throws -> (Client, CacheInterceptor) {
        let cache = CacheInterceptor(dataStore: store)
        cache.register(policy: policy, to: "/expenses/[0-9]+")
        return (try makeClient { $0.add(interceptor: cache).timeout(10) }, cache)
    }

    /// Stores the first body the route answers, through a first execution.
    private func warmUp(_ client: Client, file: StaticString = #filePath, line: UInt = #line) {
        let first = cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)
        XCTAssertNil(first.error, file: file, line: line)
        XCTAssertEqual(first.responses.map(\.source), [.network], file: file, line: line)
    }

    func testCacheAndRenew_cachedValueFirst_thenNetworkValue_thenCompletion() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [.json(Data(cacheSpecOldJSON.utf8)), LoopbackResponse.json(Data(cacheSpecNewJSON.utf8)).delayed(by: 0.1)])
        let (client, cache) = try makeCachingClient(CachePolicy.CacheAndRenew())
        warmUp(client)

        let events = try client.eventStream(endpoint, as: CacheSpecExpense.self).toBlocking(timeout: 10).toArray()

        // `toArray` returns only on completion: the stream completed after these events.
        XCTAssertEqual(
            events.filter { $0.transferProgress == nil }.map(cacheSpecName),
            [
                "requestPrepared", "value(\(cacheSpecOld), cache)", "requestSent", "responseReceived(200)",
                "value(\(cacheSpecNew), network)",
            ])
        XCTAssertEqual(events.compactMap(\.response).map(\.source), [.cache, .network])
        XCTAssertEqual(server.requestCount, 2)
        let key = try XCTUnwrap(CacheKey(request: URLRequest(url: server.url(path: "/expenses/1"))))
        XCTAssertEqual(cache.dataStore.data(for: key), Data(cacheSpecNewJSON.utf8))
    }

    func testCacheOnlyOnError_serverDown_answersFromTheCache() throws {
        server.route("GET", "/expenses/1", response: .json(Data(cacheSpecOldJSON.utf8)))
        let (client, _) = try makeCachingClient(CachePolicy.CacheOnlyOnError())
        warmUp(client)
        server.stop()

        let run = cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)

        XCTAssertNil(run.error)
        XCTAssertEqual(run.responses.map(\.value), [cacheSpecOld])
        XCTAssertEqual(run.responses.map(\.source), [.cache])
    }

    func testCacheOnlyOnError_serverDownAndNothingStored_failsWithTheTransportError() throws {
        let (client, _) = try makeCachingClient(CachePolicy.CacheOnlyOnError())
        server.stop()

        let run = cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)

        XCTAssertTrue(run.responses.isEmpty)
        XCTAssertNotNil(transportError(Response<CacheSpecExpense>.failure(run.error ?? LeashError.cancelled)))
    }

    func testCacheOnlyOnError_connectionClosedMidBody_answersFromTheCache() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [.json(Data(cacheSpecOldJSON.utf8)), LoopbackResponse.json(Data(cacheSpecNewJSON.utf8)).closingMidBody()])
        let (client, _) = try makeCachingClient(CachePolicy.CacheOnlyOnError())
        warmUp(client)

        let run = cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)

        XCTAssertNil(run.error)
        XCTAssertEqual(run.responses.map(\.value), [cacheSpecOld])
        XCTAssertEqual(run.responses.map(\.source), [.cache])
        XCTAssertEqual(server.requestCount, 2, "the network was tried")
    }

    func testCacheOnlyOnError_garbageAndServerErrors_areAnsweredFromTheCache() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [.json(Data(cacheSpecOldJSON.utf8)), .garbage(), .status(500), .status(404)])
        let (client, _) = try makeCachingClient(CachePolicy.CacheOnlyOnError())
        warmUp(client)

        let garbage = cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)
        let serverError = cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)
        let clientError = cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)

        XCTAssertEqual(garbage.responses.map(\.source), [.cache], "\(String(describing: garbage.error))")
        XCTAssertEqual(serverError.responses.map(\.source), [.cache])
        XCTAssertTrue(clientError.responses.isEmpty)
        XCTAssertEqual((clientError.error as? LeashError)?.statusCode, 404)
    }

    func testDiskStore_survivesARestartOfTheApp() throws {
        let directory = try cacheSpecTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        server.route("GET", "/expenses/1", response: .json(Data(cacheSpecOldJSON.utf8)))
        let (first, _) = try makeCachingClient(
            CachePolicy.CacheOnlyOnError(), store: DiskDataStore(directory: directory))
        warmUp(first)
        server.stop()

        // A new client, interceptor and store over the same directory: a relaunched app.
        let (second, _) = try makeCachingClient(
            CachePolicy.CacheOnlyOnError(), store: DiskDataStore(directory: directory))
        let run = cacheSpecRun(second, endpoint, as: CacheSpecExpense.self)

        XCTAssertEqual(run.responses.map(\.value), [cacheSpecOld])
        XCTAssertEqual(run.responses.map(\.source), [.cache])
    }

    func testConcurrentExecutionsAgainstTheServer_allEndWithTheNetworksValue() throws {
        server.route("GET", "/expenses/*", response: .json(Data(cacheSpecNewJSON.utf8)))
        let (client, cache) = try makeCachingClient(CachePolicy.CacheAndRenew())
        let done = expectation(description: "all executions")
        done.expectedFulfillmentCount = 24
        let lastValues = CacheSpecList<Response<CacheSpecExpense>?>()
        let subscriptions = CacheSpecList<Disposable>()

        DispatchQueue.concurrentPerform(iterations: 24) { index in
            let values = CacheSpecList<Response<CacheSpecExpense>>()
            let subscription = client.eventStream(
                CacheSpecEndpoint("/expenses/\(index % 3)"), as: CacheSpecExpense.self
            )
            .subscribe(
                onNext: { event in event.response.map(values.append) },
                onError: { error in
                    XCTFail("\(error)")
                    done.fulfill()
                },
                onCompleted: {
                    lastValues.append(values.all.last)
                    done.fulfill()
                })
            subscriptions.append(subscription)
        }
        wait(for: [done], timeout: 20)
        subscriptions.all.forEach { $0.dispose() }

        XCTAssertEqual(lastValues.all.count, 24)
        XCTAssertTrue(lastValues.all.allSatisfy { $0?.source == .network && $0?.value == cacheSpecNew })
        XCTAssertEqual((cache.dataStore as? InMemoryDataStore)?.count, 3)
    }
}
