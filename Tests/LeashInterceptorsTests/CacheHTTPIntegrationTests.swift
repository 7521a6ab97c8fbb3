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

/// The cache's HTTP semantics (`CacheFreshness`) against a real server on 127.0.0.1, over
/// the default `URLSessionTransport`. Time is the manager's scheduler, a `TestScheduler`
/// whose clock the tests move: no test waits for freshness to run out.
final class CacheHTTPIntegrationTests: LoopbackIntegrationCase {
    private let endpoint = CacheSpecEndpoint("/expenses/1")
    private let clock = TestScheduler(initialClock: 0)
    private let tagV1 = #""v1""#
    private let lastModified = "Tue, 24 Nov 2026 19:00:00 GMT"

    private func makeCachingClient(
        _ policy: CachingPolicy, store: DataStore = InMemoryDataStore(),
        configure: (Manager.Builder) -> Manager.Builder = { $0 }
    ) throws -> (Client, CacheInterceptor) {
        let cache = CacheInterceptor(dataStore: store)
        cache.register(policy: policy, to: "/expenses/[0-9]+")
        return (try makeClient { configure($0).add(interceptor: cache).scheduler(self.clock) }, cache)
    }

    private func key() throws -> CacheKey {
        try XCTUnwrap(CacheKey(request: URLRequest(url: server.url(path: "/expenses/1"))))
    }

    /// Moves the cache's clock to `seconds` after the start.
    private func advance(to seconds: Int) {
        clock.advanceTo(seconds)
    }

    private func fetch() -> (responses: [Response<CacheSpecExpense>], error: Swift.Error?) {
        cacheSpecRun(client, endpoint, as: CacheSpecExpense.self)
    }

    private var client: Client!

    /// A JSON body with `headers`.
    private func json(_ text: String, _ headers: [(String, String)]) -> LoopbackResponse {
        LoopbackResponse(
            status: 200, headers: LoopbackHeaders([("Content-Type", "application/json")] + headers),
            body: Data(text.utf8))
    }

    /// Answers `304` with `notModifiedHeaders` when `isCurrent` says the request's
    /// validators name the current version; else the old body with `headers`.
    private func routeRevalidating(
        headers: [(String, String)], notModifiedHeaders: [(String, String)] = [],
        onRevalidation: @escaping @Sendable () -> Void = {},
        isCurrent: @escaping @Sendable (LoopbackRequest) -> Bool
    ) {
        let body = json(cacheSpecOldJSON, headers)
        server.route("GET", "/expenses/1") { request in
            guard isCurrent(request) else { return body }
            onRevalidation()
            return LoopbackResponse(status: 304, headers: LoopbackHeaders(notModifiedHeaders))
        }
    }

    private func routeETag(cacheControl: String, onRevalidation: @escaping @Sendable () -> Void = {}) {
        let tag = tagV1
        routeRevalidating(
            headers: [("ETag", tag), ("Cache-Control", cacheControl)],
            notModifiedHeaders: [("ETag", tag), ("Cache-Control", cacheControl)], onRevalidation: onRevalidation
        ) { $0.headers["If-None-Match"] == tag }
    }

    private func assertValues(
        _ run: (responses: [Response<CacheSpecExpense>], error: Swift.Error?), _ values: [CacheSpecExpense],
        sources: [ResponseSource], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertNil(run.error, file: file, line: line)
        XCTAssertEqual(run.responses.map(\.value), values, file: file, line: line)
        XCTAssertEqual(run.responses.map(\.source), sources, file: file, line: line)
    }

    // MARK: Revalidation

    func testETag_staleEntryIsRevalidated_the304AnswersTheStoredValue_andRenewsIt() throws {
        routeETag(cacheControl: "max-age=60")
        let cache: CacheInterceptor
        (client, cache) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(server.requestCount, 1, "fresh: no request")

        advance(to: 60)
        let revalidated = fetch()

        assertValues(revalidated, [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(revalidated.responses.map(\.statusCode), [304], "the 304, never an error")
        XCTAssertEqual(server.requestCount, 2)
        XCTAssertNil(server.requestLog.first?.headers["If-None-Match"])
        XCTAssertEqual(server.requestLog.last?.headers["If-None-Match"], tagV1)
        XCTAssertEqual(cache.entry(for: try key())?.metadata?.storedAt, Date(timeIntervalSince1970: 60))
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(server.requestCount, 2, "fresh again for the 304's max-age")
    }

    func testLastModified_isSentBackAsIfModifiedSince() throws {
        let date = lastModified
        routeRevalidating(headers: [("Last-Modified", date), ("Cache-Control", "max-age=10")]) {
            $0.headers["If-Modified-Since"] == date
        }
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        advance(to: 10)
        let revalidated = fetch()

        assertValues(revalidated, [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(revalidated.responses.map(\.statusCode), [304])
        XCTAssertEqual(server.requestCount, 2)
        XCTAssertEqual(server.requestLog.last?.headers["If-Modified-Since"], date)
        XCTAssertNil(server.requestLog.last?.headers["If-None-Match"], "no ETag to send")
    }

    func testETagAndLastModified_bothStored_areBothSentBack() throws {
        let (tag, date) = (tagV1, lastModified)
        routeRevalidating(headers: [("ETag", tag), ("Last-Modified", date), ("Cache-Control", "max-age=10")]) {
            $0.headers["If-None-Match"] == tag
        }
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        advance(to: 10)
        let revalidated = fetch()

        assertValues(revalidated, [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(revalidated.responses.map(\.statusCode), [304])
        XCTAssertEqual(server.requestLog.last?.headers["If-None-Match"], tag)
        XCTAssertEqual(server.requestLog.last?.headers["If-Modified-Since"], date)
    }

    func testNoCache_isRevalidatedAtEveryUse_evenWithinItsMaxAge() throws {
        routeETag(cacheControl: "no-cache, max-age=600")
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])

        XCTAssertEqual(server.requestCount, 3)
        XCTAssertEqual(server.requestLog.map { $0.headers["If-None-Match"] }, [nil, tagV1, tagV1])
    }

    func testRequestsOwnNoCache_revalidatesAFreshEntry() throws {
        routeETag(cacheControl: "max-age=600")
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http())) {
            $0.header("Cache-Control", "no-cache")
        }
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        assertValues(fetch(), [cacheSpecOld], sources: [.cache])

        XCTAssertEqual(server.requestCount, 2)
        XCTAssertEqual(server.requestLog.last?.headers["If-None-Match"], tagV1)
    }

    func test200AfterRevalidation_replacesTheEntry() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [
                json(cacheSpecOldJSON, [("ETag", tagV1), ("Cache-Control", "max-age=10")]),
                json(cacheSpecNewJSON, [("ETag", #""v2""#), ("Cache-Control", "max-age=10")]),
            ])
        let cache: CacheInterceptor
        (client, cache) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        advance(to: 10)
        assertValues(fetch(), [cacheSpecNew], sources: [.network])

        XCTAssertEqual(server.requestLog.last?.headers["If-None-Match"], tagV1)
        let entry = try XCTUnwrap(cache.entry(for: try key()))
        XCTAssertEqual(entry.body, Data(cacheSpecNewJSON.utf8))
        XCTAssertEqual(entry.metadata?.entityTag, #""v2""#)
        XCTAssertEqual(entry.metadata?.storedAt, Date(timeIntervalSince1970: 10))
        assertValues(fetch(), [cacheSpecNew], sources: [.cache])
        XCTAssertEqual(server.requestCount, 2)
    }

    func testBodyEvictedWhileRevalidating_the304FailsWithACacheError() throws {
        let store = InMemoryDataStore()
        // The server empties the store as it answers: the body is gone when the 304 lands.
        routeETag(cacheControl: "max-age=0", onRevalidation: { store.removeAll() })
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http()), store: store)
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        let revalidated = fetch()

        XCTAssertEqual(revalidated.responses.count, 0, "no empty value")
        XCTAssertEqual(revalidated.error as? CacheError, .notModifiedButNotStored(try key()))
        XCTAssertEqual(server.requestLog.last?.headers["If-None-Match"], tagV1)
    }

    func testThe304_isAlreadyASuccessForTheCompletionInterceptors() throws {
        routeETag(cacheControl: "max-age=0")
        let logger = CacheSpecRecordingLogger()
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http())) {
            $0.add(interceptor: LoggerInterceptor(logger: logger))
        }
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        assertValues(fetch(), [cacheSpecOld], sources: [.cache])

        // A logger added before the cache sees the answer, not a failure it would log as one.
        XCTAssertEqual(logger.all.filter { $0.level == .error }, [])
        XCTAssertEqual(logger.messages.filter { $0.hasPrefix("✔✔✔") }.count, 2, "\(logger.messages)")
    }

    func testSuccessInterceptorBeforeTheCache_failingThe304_isStillAnsweredFromTheStore() throws {
        routeETag(cacheControl: "max-age=0")
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http())) {
            $0.add(interceptor: StatusValidator())
        }
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        let revalidated = fetch()

        assertValues(revalidated, [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(revalidated.responses.map(\.statusCode), [304])
        XCTAssertEqual(server.requestCount, 2)
    }

    func testDiskStore_keepsTheValidatorsAcrossLaunches() throws {
        let directory = try cacheSpecTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        routeETag(cacheControl: "max-age=60")
        (client, _) = try makeCachingClient(
            CachePolicy.CacheElseNetwork(freshness: .http()), store: DiskDataStore(directory: directory))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        // A new client, interceptor and store over the same directory: a relaunched app.
        (client, _) = try makeCachingClient(
            CachePolicy.CacheElseNetwork(freshness: .http()), store: DiskDataStore(directory: directory))
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(server.requestCount, 1, "still fresh after the relaunch")
        advance(to: 61)
        let revalidated = fetch()

        assertValues(revalidated, [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(revalidated.responses.map(\.statusCode), [304])
        XCTAssertEqual(server.requestLog.last?.headers["If-None-Match"], tagV1)
    }

    // MARK: Freshness

    func testTimeToLive_freshWithoutARequest_thenStaleGoesToTheNetwork() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [.json(Data(cacheSpecOldJSON.utf8)), .json(Data(cacheSpecNewJSON.utf8))])
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .timeToLive(30)))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        advance(to: 29)
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(server.requestCount, 1)
        advance(to: 30)
        assertValues(fetch(), [cacheSpecNew], sources: [.network])
        XCTAssertEqual(server.requestCount, 2)
    }

    func testMaxAge_winsOverTheDefaultTimeToLive() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [
                json(cacheSpecOldJSON, [("Cache-Control", "max-age=10")]),
                json(cacheSpecNewJSON, [("Cache-Control", "max-age=10")]),
            ])
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http(defaultTimeToLive: 300)))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        advance(to: 9)
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        advance(to: 10)
        assertValues(fetch(), [cacheSpecNew], sources: [.network])
        XCTAssertNil(server.requestLog.last?.headers["If-None-Match"], "nothing to revalidate with")
    }

    func testNoCachingHeaders_takeTheDefaultTimeToLive() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [.json(Data(cacheSpecOldJSON.utf8)), .json(Data(cacheSpecNewJSON.utf8))])
        (client, _) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http(defaultTimeToLive: 300)))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        advance(to: 299)
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        advance(to: 300)
        assertValues(fetch(), [cacheSpecNew], sources: [.network])
    }

    func testNoStore_isNeverStored_andRemovesWhatWasStored() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [
                .json(Data(cacheSpecOldJSON.utf8)), json(cacheSpecNewJSON, [("Cache-Control", "no-store")]),
                json(cacheSpecNewJSON, [("Cache-Control", "no-store")]),
            ])
        let cache: CacheInterceptor
        (client, cache) = try makeCachingClient(CachePolicy.CacheElseNetwork(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])
        XCTAssertNotNil(cache.entry(for: try key()), "stored, stale at once (default time to live 0)")

        assertValues(fetch(), [cacheSpecNew], sources: [.network])
        XCTAssertNil(cache.entry(for: try key()), "no-store removed it")
        assertValues(fetch(), [cacheSpecNew], sources: [.network])
        XCTAssertNil(cache.entry(for: try key()))
        XCTAssertEqual(server.requestCount, 3)
    }

    func testCacheElseNetwork_withoutFreshness_stillServesTheStoredBodyForever() throws {
        server.routeSequence(
            method: "GET", path: "/expenses/1",
            [json(cacheSpecOldJSON, [("Cache-Control", "max-age=1")]), .json(Data(cacheSpecNewJSON.utf8))])
        let cache: CacheInterceptor
        (client, cache) = try makeCachingClient(CachePolicy.CacheElseNetwork())
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        advance(to: 1_000_000)
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])

        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(cache.dataStore.data(for: try key()), Data(cacheSpecOldJSON.utf8), "the bare body, as before")
    }

    // MARK: The other policies

    func testCacheAndRenew_freshAnswersAlone_staleAnswersFirstThenThe304() throws {
        routeETag(cacheControl: "max-age=60")
        (client, _) = try makeCachingClient(CachePolicy.CacheAndRenew(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])

        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
        XCTAssertEqual(server.requestCount, 1, "fresh: nothing to renew")
        advance(to: 60)
        let renewed = fetch()

        assertValues(renewed, [cacheSpecOld, cacheSpecOld], sources: [.cache, .cache])
        XCTAssertEqual(renewed.responses.map(\.statusCode), [nil, 304])
        XCTAssertEqual(server.requestCount, 2)
    }

    func testCacheOnlyOnError_revalidates_andAnswersAFailureWithAStaleBody() throws {
        routeETag(cacheControl: "max-age=0")
        (client, _) = try makeCachingClient(CachePolicy.CacheOnlyOnError(freshness: .http()))
        assertValues(fetch(), [cacheSpecOld], sources: [.network])
        let revalidated = fetch()
        XCTAssertEqual(revalidated.responses.map(\.statusCode), [304])
        XCTAssertEqual(server.requestLog.last?.headers["If-None-Match"], tagV1)
        server.stop()

        advance(to: 3600)
        assertValues(fetch(), [cacheSpecOld], sources: [.cache])
    }
}
