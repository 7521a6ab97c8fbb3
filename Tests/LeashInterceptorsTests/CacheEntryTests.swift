@testable import LeashInterceptors
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CacheEntry` (how metadata is kept with a body in any `DataStore`) and
/// `CacheFreshness` (what metadata a response gets).
final class CacheEntryTests: XCTestCase {
    private let key = CacheKey(method: "GET", location: "https://api.example.com/v1/users/1")
    private let metadata = CacheEntry.Metadata(
        storedAt: Date(timeIntervalSince1970: 1000), lifetime: 60, requiresRevalidation: true,
        entityTag: #""v1""#, lastModified: "Tue, 24 Nov 2026 19:00:00 GMT")

    // MARK: The envelope

    func testBodyWithoutMetadata_isStoredAsItIs() {
        let body = Data(#"{"id":1}"#.utf8)

        XCTAssertEqual(CacheEntry(body: body).storedData, body, "what stores held before freshness existed")
        XCTAssertEqual(CacheEntry(storedData: body), CacheEntry(body: body))
    }

    func testMetadata_roundTripsThroughTheEnvelope() throws {
        let entry = CacheEntry(body: Data("hello".utf8), metadata: metadata)

        let stored = entry.storedData

        XCTAssertNotEqual(stored, entry.body)
        XCTAssertEqual(CacheEntry(storedData: stored), entry)
    }

    func testBareBodyStartingWithTheMagic_isWrapped_soItReadsBackAsItself() {
        let body = CacheEntry.magic + Data("not an envelope".utf8)

        let stored = CacheEntry(body: body).storedData

        XCTAssertNotEqual(stored, body)
        XCTAssertEqual(CacheEntry(storedData: stored), CacheEntry(body: body))
    }

    func testTruncatedOrCorruptEnvelope_isAMiss() {
        let stored = CacheEntry(body: Data("hello".utf8), metadata: metadata).storedData
        let metadataLength = 4 + 10

        XCTAssertNil(CacheEntry(storedData: stored.prefix(CacheEntry.magic.count + 2)), "length cut")
        XCTAssertNil(CacheEntry(storedData: stored.prefix(CacheEntry.magic.count + metadataLength)), "metadata cut")
        var garbled = stored
        garbled[CacheEntry.magic.count + 4] = UInt8(ascii: "!")  // the JSON's opening brace
        XCTAssertNil(CacheEntry(storedData: garbled), "metadata that is not JSON")
    }

    func testEnvelope_survivesADiskStoreRoundTrip() throws {
        let directory = try cacheSpecTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entry = CacheEntry(body: Data(#"{"id":1}"#.utf8), metadata: metadata)
        DiskDataStore(directory: directory).save(entry.storedData, for: key)

        let reread = DiskDataStore(directory: directory).data(for: key)

        XCTAssertEqual(reread.flatMap(CacheEntry.init(storedData:)), entry)
    }

    func testFreshness_untilTheLifetimeHasPassed_andNeverWhenRevalidationIsRequired() {
        var fresh = metadata
        fresh.requiresRevalidation = false

        XCTAssertTrue(fresh.isFresh(at: Date(timeIntervalSince1970: 1059)))
        XCTAssertFalse(fresh.isFresh(at: Date(timeIntervalSince1970: 1060)))
        XCTAssertFalse(metadata.isFresh(at: Date(timeIntervalSince1970: 1000)))
    }

    // MARK: What a response gets

    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func response(_ headers: [String: String], status: Int = 200) throws -> HTTPURLResponse {
        try XCTUnwrap(
            HTTPURLResponse(
                url: try XCTUnwrap(URL(string: "https://api.example.com/v1/users/1")), statusCode: status,
                httpVersion: "HTTP/1.1",
                headerFields: headers))
    }

    func testHTTP_maxAgeLessAge_winsOverExpiresAndTheDefault() throws {
        let head = try response([
            "Cache-Control": "max-age=100", "Age": "30", "Expires": "Thu, 01 Jan 2099 00:00:00 GMT", "ETag": #""a""#,
        ])

        let stored = CacheFreshness.http(defaultTimeToLive: 5).metadata(for: head, request: nil, at: now)

        XCTAssertEqual(stored, CacheEntry.Metadata(storedAt: now, lifetime: 70, entityTag: #""a""#))
    }

    func testHTTP_expiresCountsFromTheResponsesDate_andAnInvalidOneIsInThePast() throws {
        let dated = try response(["Date": "Tue, 24 Nov 2026 19:00:00 GMT", "Expires": "Tue, 24 Nov 2026 19:10:00 GMT"])
        let invalid = try response(["Expires": "0"])

        XCTAssertEqual(
            CacheFreshness.http(defaultTimeToLive: 5).metadata(for: dated, request: nil, at: now)?.lifetime, 600)
        XCTAssertEqual(
            CacheFreshness.http(defaultTimeToLive: 5).metadata(for: invalid, request: nil, at: now)?.lifetime, 0)
    }

    func testHTTP_noHeaders_takeTheDefault_noCacheIsFlagged_noStoreIsNotStored() throws {
        let http = CacheFreshness.http(defaultTimeToLive: 45)

        XCTAssertEqual(http.metadata(for: try response([:]), request: nil, at: now)?.lifetime, 45)
        XCTAssertEqual(
            http.metadata(for: try response(["Cache-Control": "no-cache, max-age=600"]), request: nil, at: now)?
                .requiresRevalidation, true)
        XCTAssertNil(http.metadata(for: try response(["Cache-Control": "private, no-store"]), request: nil, at: now))
        var noStoreRequest = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/v1/users/1")))
        noStoreRequest.setValue("no-store", forHTTPHeaderField: "Cache-Control")
        XCTAssertNil(http.metadata(for: try response([:]), request: noStoreRequest, at: now), "the request's own")
    }

    func testTimeToLive_ignoresTheResponsesCachingHeaders() throws {
        let head = try response(["Cache-Control": "no-store, no-cache, max-age=1", "Last-Modified": "yesterday"])

        let stored = CacheFreshness.timeToLive(300).metadata(for: head, request: nil, at: now)

        XCTAssertEqual(stored, CacheEntry.Metadata(storedAt: now, lifetime: 300, lastModified: "yesterday"))
    }

    func testRenewal_a304WithoutFreshnessHeaders_keepsTheLifetimeAndValidators() throws {
        let previous = CacheEntry.Metadata(
            storedAt: Date(timeIntervalSince1970: 0), lifetime: 120, requiresRevalidation: true, entityTag: #""a""#)

        let bare = CacheFreshness.http().metadata(
            for: try response([:], status: 304), request: nil, at: now, renewing: previous)
        let told = CacheFreshness.http().metadata(
            for: try response(["Cache-Control": "max-age=9", "ETag": #""b""#], status: 304), request: nil, at: now,
            renewing: previous)

        XCTAssertEqual(
            bare, CacheEntry.Metadata(storedAt: now, lifetime: 120, requiresRevalidation: true, entityTag: #""a""#))
        XCTAssertEqual(told, CacheEntry.Metadata(storedAt: now, lifetime: 9, entityTag: #""b""#))
    }

    func testTimeToLive_negativeNaNAndInfinite_areClamped() {
        XCTAssertEqual(CacheFreshness.timeToLive(-3).timeToLive, 0)
        XCTAssertEqual(CacheFreshness.timeToLive(.nan).timeToLive, 0)
        XCTAssertEqual(CacheFreshness.http(defaultTimeToLive: .infinity).timeToLive, 2_147_483_648)
    }
}
