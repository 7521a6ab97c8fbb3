import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

@testable import LeashOutbox

/// The store: what survives a restart, what a bad file gets, what is (not) kept on disk.
final class OutboxStoreTests: OutboxTestCase {
    private func open(
        _ name: String = "outbox.sqlite", client: Client? = nil, _ configure: (inout OutboxOptions) -> Void = { _ in }
    ) throws -> Outbox {
        try Outbox(
            client: client ?? stubClient(transport, scheduler: scheduler), storedAt: folder.store(name),
            options: exactOptions(configure))
    }

    private func bytes(_ url: URL) -> Data { (try? Data(contentsOf: url)) ?? Data() }

    // MARK: Restarts

    func testItems_surviveAReopen_inOrder_andAreDeliveredByTheNextOutbox() throws {
        transport.stub(.post, path: "/notes", .status(201, delay: 1))
        let first = try open()
        first.pause()
        let ids = try ["a", "b", "c"].map { try first.enqueue(PostNote(text: $0)).id }
        first.close()
        XCTAssertTrue(transport.requests.isEmpty)

        let second = try open()
        let items = try second.items()
        XCTAssertEqual(items.map(\.id), ids)
        XCTAssertEqual(items.map(\.attempts), [1, 0, 0], "the first is on its way")
        scheduler.start()
        XCTAssertEqual(try second.items().count, 0)
        XCTAssertEqual(
            transport.requests.compactMap { $0.value(forHTTPHeaderField: "X-Client-Note") }, ["a", "b", "c"])
    }

    func testAnItemOnTheWireWhenClosed_isSentAgainByTheNextOutbox_withItsKey() throws {
        transport.stub(.post, path: "/notes", .status(201, delay: 10), .status(201, delay: 1))
        let first = try open()
        let item = try first.enqueue(PostNote(text: "a"))
        XCTAssertEqual(try first.items().first?.state.description, "sending")
        first.close()

        let second = try open()
        let recorder = EventRecorder(second)
        scheduler.start()
        let keys = transport.requests.compactMap { $0.value(forHTTPHeaderField: "Idempotency-Key") }
        XCTAssertEqual(keys, [item.idempotencyKey, item.idempotencyKey])
        guard case .delivered(let delivered, _)? = recorder.events.last?.event else { return XCTFail("not delivered") }
        XCTAssertEqual(delivered.attempts, 2)
        XCTAssertEqual(try second.items().count, 0)
    }

    func testAFailedItem_keepsItsErrorAcrossARestart() throws {
        var failure = StubResponse.json(#"{"error":"title missing"}"#, status: 422)
        failure.headers["X-Request-Id"] = "r-1"
        transport.stub(.post, path: "/notes", failure)
        try open().enqueue(PostNote(text: "a"))

        let reopened = try open()
        reopened.pause()
        let error = try XCTUnwrap(try reopened.items().first?.state.error)
        guard case .unacceptableStatusCode(let status) = error else { return XCTFail("\(error)") }
        XCTAssertEqual(status.statusCode, 422)
        XCTAssertEqual(status.headers["X-Request-Id"], "r-1")
        XCTAssertEqual(String(decoding: status.body, as: UTF8.self), #"{"error":"title missing"}"#)
        XCTAssertEqual(try reopened.pendingCount(), 0)
    }

    func testAWaitingItem_waitsOutTheRestOfItsBackoffAfterARestart() throws {
        transport.stub(.post, path: "/notes", .status(503), .status(201))
        let first = try open { $0.initialRetryDelay = 10 }
        scheduler.scheduleAt(100) { _ = try? first.enqueue(PostNote(text: "a")) }
        scheduler.scheduleAt(2100) { first.close() }
        scheduler.advanceTo(2100)

        let second = try open()
        guard case .waiting(let until)? = try second.items().first?.state else { return XCTFail("not waiting") }
        XCTAssertEqual(until.timeIntervalSince1970, 10.1, accuracy: 0.0001)
        let recorder = EventRecorder(second, clock: { [scheduler] in scheduler!.clock })
        scheduler.start()
        XCTAssertEqual(recorder.timeline, ["10100 sending#2 /notes", "10100 delivered(201) /notes"])
    }

    func testAClockSetBack_holdsAWaitingItemNoLongerThanTheLongestWait() throws {
        // Stored at 10,000 s waiting until 10,010 s; reopened with the clock at 0.
        let before = TestScheduler(initialClock: 10_000_000, resolution: 0.001)
        let beforeTransport = StubTransport(scheduler: before).stub(.post, path: "/notes", .status(503))
        let first = try Outbox(
            client: stubClient(beforeTransport, scheduler: before), storedAt: folder.store(),
            options: exactOptions { $0.initialRetryDelay = 10 })
        try first.enqueue(PostNote(text: "a"))
        before.advanceTo(10_000_001)  // the 503 arrives: waiting until 10,010 s
        guard case .waiting? = try first.items().first?.state else { return XCTFail("not waiting") }
        first.close()

        transport.stub(.post, path: "/notes", .status(201))
        let second = try open { $0.maximumRetryDelay = 60 }
        let recorder = EventRecorder(second, clock: { [scheduler] in scheduler!.clock })
        scheduler.start()
        XCTAssertEqual(recorder.timeline, ["60000 sending#2 /notes", "60000 delivered(201) /notes"])
    }

    func testClose_twice_isHarmless_enqueueAfterItThrows_andTheEventsComplete() throws {
        let outbox = try open()
        let completed = expectation(description: "events complete")
        let subscription = outbox.rx.events.subscribe(onCompleted: { completed.fulfill() })
        outbox.close()
        outbox.close()
        wait(for: [completed], timeout: 5)
        XCTAssertThrowsError(try outbox.enqueue(PostNote(text: "a"))) { error in
            guard case .closed? = error as? OutboxError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try outbox.items())
        subscription.dispose()
    }

    func testAnOutboxNobodyHolds_isReleased_andLetsGoOfTheFile() throws {
        transport.stub(.post, path: "/notes", .status(201))
        var first: Outbox? = try open()
        weak let released = first
        first?.pause()
        try first?.enqueue(PostNote(text: "a"))
        first = nil
        XCTAssertNil(released)
        // The delivery lock went with it: the next outbox delivers at once.
        let second = try open()
        XCTAssertEqual(try second.items().count, 0)
        XCTAssertEqual(transport.requests.count, 1)
    }

    // MARK: Several outboxes on one file

    func testTwoOutboxesOnOneFile_bothEnqueue_oneDelivers_andTheOtherTakesOverWhenItCloses() throws {
        transport.stub(.post, path: "/notes", .status(201))
        let first = try open()
        let second = try open { $0.storeWatchInterval = 0.02 }
        first.pause()  // holds the delivery lock, sends nothing
        try second.enqueue(PostNote(text: "from the second"))
        try first.enqueue(PostNote(text: "from the first"))
        XCTAssertEqual(transport.requests.count, 0, "only the holder of the delivery lock sends")
        XCTAssertEqual(try second.items().count, 2)

        let delivered = expectation(description: "the second delivers both")
        delivered.expectedFulfillmentCount = 2
        let subscription = second.rx.events.subscribe(onNext: { event in
            if case .delivered = event { delivered.fulfill() }
        })
        first.close()
        wait(for: [delivered], timeout: 10)
        subscription.dispose()
        XCTAssertEqual(
            transport.requests.compactMap { $0.value(forHTTPHeaderField: "X-Client-Note") },
            ["from the second", "from the first"])
    }

    func testTheHolder_seesItemsAnotherOutboxAddsToTheFile() throws {
        transport.stub(.post, path: "/notes", .status(201))
        let holder = try open { $0.storeWatchInterval = 0.02 }
        let other = try open { $0.storeWatchInterval = 0 }
        let delivered = expectation(description: "the holder delivers the other's item")
        let subscription = holder.rx.events.subscribe(onNext: { event in
            if case .delivered = event { delivered.fulfill() }
        })
        try other.enqueue(PostNote(text: "a"))
        wait(for: [delivered], timeout: 10)
        subscription.dispose()
        XCTAssertEqual(transport.requests.count, 1)
    }

    // MARK: Files that are not outboxes

    private func assertRefused(
        _ url: URL, file: StaticString = #filePath, line: UInt = #line, _ check: (OutboxError) -> Bool
    ) throws {
        let before = bytes(url)
        XCTAssertThrowsError(try Outbox(client: stubClient(transport, scheduler: scheduler), storedAt: url)) { error in
            guard let outboxError = error as? OutboxError, check(outboxError) else {
                return XCTFail("unexpected \(error)", file: file, line: line)
            }
            XCTAssertFalse(outboxError.description.isEmpty)
        }
        XCTAssertEqual(bytes(url), before, "the file was changed", file: file, line: line)
    }

    func testRandomBytes_areNotAnOutbox_andAreLeftAsTheyAre() throws {
        let url = folder.store("random.sqlite")
        var generator = SystemRandomNumberGenerator()
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: url)
        try assertRefused(url) { if case .notAnOutbox = $0 { return true } else { return false } }
    }

    func testAnotherApplicationsDatabase_isNotAnOutbox() throws {
        let url = folder.store("other.sqlite")
        let other = try SQLiteDatabase(path: url.path, create: true)
        try other.execute("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');")
        try assertRefused(url) { error in
            guard case .notAnOutbox(_, let reason) = error else { return false }
            return reason.contains("another SQLite database")
        }
    }

    func testAStoreOfANewerSchema_isRefused_notReset() throws {
        let url = folder.store()
        try open().close()
        let raw = try SQLiteDatabase(path: url.path, create: false)
        try raw.execute("PRAGMA user_version = 99")
        try assertRefused(url) { error in
            guard case .newerSchema(_, let version, let supported) = error else { return false }
            return version == 99 && supported == OutboxSchema.version
        }
    }

    func testATruncatedCopy_isRefused() throws {
        let url = folder.store()
        let outbox = try open()
        outbox.pause()
        for index in 0..<300 { try outbox.enqueue(PostNote(text: String(repeating: "x", count: 200) + "\(index)")) }
        outbox.close()
        let copy = folder.store("copy.sqlite")
        let whole = bytes(url)
        XCTAssertGreaterThan(whole.count, 16384)
        try whole.prefix(whole.count / 2).write(to: copy)
        try assertRefused(copy) { if case .notAnOutbox = $0 { return true } else { return false } }
    }

    func testAFullDisk_makesEnqueueThrow_andLosesNothingStored() throws {
        let outbox = try open()
        outbox.pause()
        let kept = try outbox.enqueue(PostNote(text: "kept"))
        try outbox.courier.store.limitSizeForTesting(pages: 2)
        let big = String(repeating: "y", count: 20_000)
        XCTAssertThrowsError(try outbox.enqueue(PostNote(text: big))) { error in
            guard case .storage(_, _, let code, _)? = error as? OutboxError else { return XCTFail("\(error)") }
            XCTAssertEqual(code & 0xFF, 13)  // SQLITE_FULL
        }
        XCTAssertEqual(try outbox.items().map(\.id), [kept.id])
    }

    func testTheStore_keepsNeitherTheCredentialNorTheManagersHeaders() throws {
        let authenticator = SpecAuthenticator(token: "secret-token-1")
        let client = try stubClient(transport, scheduler: scheduler) {
            $0.authenticator(authenticator).header("X-App-Version", "9.9.9-default")
        }
        transport.stub(.post, path: "/notes", .status(201))
        let outbox = try open(client: client)
        outbox.pause()
        try outbox.enqueue(PostNote(text: "a"))
        authenticator.accessToken = "secret-token-2"
        outbox.close()
        let onDisk = try FileManager.default.contentsOfDirectory(at: folder.url, includingPropertiesForKeys: nil)
            .map(bytes).reduce(Data(), +)
        XCTAssertNotNil(onDisk.range(of: Data("X-Client-Note".utf8)), "the endpoint's own header is stored")
        XCTAssertNil(onDisk.range(of: Data("secret-token".utf8)))
        XCTAssertNil(onDisk.range(of: Data("9.9.9-default".utf8)))

        // Sent with the credential and headers of the moment.
        _ = try open(client: client)
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Authorization"), "Bearer secret-token-2")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-App-Version"), "9.9.9-default")
    }
}
