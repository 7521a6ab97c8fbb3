import Foundation
import Leash
@testable import LeashOutbox
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Delivery in virtual time: what is sent when, what is retried, what fails, in which order.
/// Each test also checks that every Rx resource it made is released once its outbox is.
final class OutboxDeliveryTests: OutboxTestCase {
    private func makeOutbox(_ configure: (inout OutboxOptions) -> Void = { _ in }) throws -> (Outbox, EventRecorder) {
        let client = try stubClient(transport, scheduler: scheduler)
        let outbox = try Outbox(client: client, storedAt: folder.store(), options: exactOptions(configure))
        let scheduler = self.scheduler!
        return (outbox, EventRecorder(outbox, clock: { scheduler.clock }))
    }

    private func enqueue(
        _ outbox: Outbox, at time: Int, _ text: String, lane: String = "default", path: String = "/notes"
    ) {
        scheduler.scheduleAt(time) {
            do { try outbox.enqueue(PostNote(text: text, path: path), lane: lane) } catch { XCTFail("\(error)") }
        }
    }

    func testEnqueue_isSentAtOnce_andDeliveredOnItsAnswer() throws {
        transport.stub(.post, path: "/notes", .json(#"{"id":1}"#, status: 201, delay: 0.1))
        let (outbox, recorder) = try makeOutbox()
        enqueue(outbox, at: 200, "a")
        scheduler.start()
        XCTAssertEqual(recorder.timeline, ["200 enqueued /notes", "200 sending#1 /notes", "300 delivered(201) /notes"])
        guard case .delivered(_, let extra)? = recorder.events.last?.event else { return XCTFail("not delivered") }
        XCTAssertEqual(String(decoding: extra.data ?? Data(), as: UTF8.self), #"{"id":1}"#)
        XCTAssertEqual(try outbox.items().count, 0)
        XCTAssertEqual(try outbox.pendingCount(), 0)
    }

    func testRequest_carriesTheStoredIntent_andTheKeyAsAQuotedString() throws {
        transport.stub(.post, path: "/notes", .status(201))
        let (outbox, _) = try makeOutbox()
        var item: OutboxItem?
        scheduler.scheduleAt(200) { item = try? outbox.enqueue(PostNote(text: "hello", path: "/notes?draft=1")) }
        scheduler.start()
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.httpMethod, "POST")
        XCTAssertEqual(request.url?.absoluteString, "https://api.example.com/notes?draft=1")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Client-Note"), "hello")
        XCTAssertEqual(try JSONDecoder().decode(Note.self, from: request.httpBody ?? Data()), Note(text: "hello"))
        let key = try XCTUnwrap(request.value(forHTTPHeaderField: "Idempotency-Key"))
        XCTAssertEqual(key, item?.idempotencyKey)
        XCTAssertTrue(key.hasPrefix("\"") && key.hasSuffix("\""), key)
        XCTAssertNotNil(UUID(uuidString: String(key.dropFirst().dropLast())), key)
        XCTAssertEqual(item?.path, "/notes?draft=1")
        XCTAssertEqual(item?.method, .post)
        XCTAssertEqual(item?.lane, "default")
    }

    func testTheStoredPath_sendsTheSameURLTheClientWouldHaveSent() throws {
        struct Search: QueryEncodable {
            var q = "a b+c&d=é/ü?"
            var tags = ["x y", "z[1]"]
            var exact = true
        }
        struct PostSearch: Endpoint {
            var path: String { "/search/caf%C3%A9 menu" }
            var method: HTTPMethod { .post }
            var parameters: Any? { Search() }
        }
        transport.stub(matching: { _ in true }, [.status(201)])
        let client = try stubClient(transport, scheduler: scheduler)
        let direct = try client.urlRequest(for: PostSearch()).url
        let outbox = try Outbox(client: client, storedAt: folder.store(), options: exactOptions())
        try outbox.enqueue(PostSearch())
        XCTAssertEqual(transport.requests.first?.url, direct)
        XCTAssertNotNil(direct?.query)
    }

    func testTheEndpointsHeaders_comeBackAsTheyWere_andALineBreakInOneIsRefused() throws {
        struct WithHeaders: Endpoint {
            var headers: [String: String]?
            var path: String { "/notes" }
            var method: HTTPMethod { .post }
        }
        transport.stub(.post, path: "/notes", .status(201))
        let (outbox, _) = try makeOutbox()
        let headers = ["X-Time": "12:30: lunch", "X-Empty": "", "X-Spaced": "  two  ", "X-Ünïcode": "☕️"]
        try outbox.enqueue(WithHeaders(headers: headers))
        let sent = try XCTUnwrap(transport.requests.first)
        for (name, value) in headers {
            XCTAssertEqual(sent.value(forHTTPHeaderField: name), value, name)
        }
        for bad in [["X-Bad": "one\r\ntwo"], ["X-Bad": "one\ntwo"], ["Bad:Name": "x"], ["": "x"]] {
            XCTAssertThrowsError(try outbox.enqueue(WithHeaders(headers: bad))) { error in
                guard case .encoding? = error as? LeashError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testNoKeyHeader_sendsNoKey() throws {
        transport.stub(.post, path: "/notes", .status(201))
        let (outbox, _) = try makeOutbox { $0.idempotencyKeyHeader = nil }
        enqueue(outbox, at: 200, "a")
        scheduler.start()
        XCTAssertNil(try XCTUnwrap(transport.requests.first).value(forHTTPHeaderField: "Idempotency-Key"))
    }

    func testServerError_isRetriedWithDoublingBackoff_andTheSameKey() throws {
        transport.stub(
            .post, path: "/notes", .status(503, delay: 0.1), .status(503, delay: 0.1),
            .json(#"{}"#, status: 201, delay: 0.1))
        let (outbox, recorder) = try makeOutbox { $0.initialRetryDelay = 1 }
        enqueue(outbox, at: 200, "a")
        scheduler.start()
        XCTAssertEqual(
            recorder.timeline,
            [
                "200 enqueued /notes", "200 sending#1 /notes", "300 retrying(1.0) /notes", "1300 sending#2 /notes",
                "1400 retrying(2.0) /notes", "3400 sending#3 /notes", "3500 delivered(201) /notes",
            ])
        let keys = Set(transport.requests.compactMap { $0.value(forHTTPHeaderField: "Idempotency-Key") })
        XCTAssertEqual(transport.requests.count, 3)
        XCTAssertEqual(keys.count, 1)
    }

    func testRetryAfter_inSeconds_isHonoured_butNeverBeyondTheMaximum() throws {
        transport.stub(
            .post, path: "/notes", .status(429).with(headers: ["Retry-After": "7"]),
            .status(503).with(headers: ["Retry-After": "100000"]), .status(201))
        let (outbox, recorder) = try makeOutbox { $0.maximumRetryDelay = 60 }
        enqueue(outbox, at: 200, "a")
        scheduler.start()
        XCTAssertEqual(
            recorder.timeline,
            [
                "200 enqueued /notes", "200 sending#1 /notes", "200 retrying(7.0) /notes", "7200 sending#2 /notes",
                "7200 retrying(60.0) /notes", "67200 sending#3 /notes", "67200 delivered(201) /notes",
            ])
    }

    func testRetryAfter_asAnHTTPDate_isReadAgainstTheSchedulersClock() {
        let now = Date(timeIntervalSince1970: 1_445_412_400)  // Wed, 21 Oct 2015 07:26:40 GMT
        XCTAssertEqual(RetryVerdict.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now), 80)
        XCTAssertEqual(RetryVerdict.retryAfter("Wednesday, 21-Oct-15 07:28:00 GMT", now: now), 80)
        XCTAssertEqual(RetryVerdict.retryAfter(" 120 ", now: now), 120)
        XCTAssertNil(RetryVerdict.retryAfter("soon", now: now))
    }

    func testClientError_failsTheItem_keepsIt_andItsLaneGoesOn() throws {
        transport.stub(.post, path: "/bad", .json(#"{"error":"no"}"#, status: 422))
        transport.stub(.post, path: "/notes", .status(201))
        let (outbox, recorder) = try makeOutbox()
        enqueue(outbox, at: 200, "a", path: "/bad")
        enqueue(outbox, at: 200, "b")
        scheduler.start()
        XCTAssertEqual(
            recorder.timeline,
            [
                "200 enqueued /bad", "200 sending#1 /bad", "200 failed(422) /bad", "200 enqueued /notes",
                "200 sending#1 /notes", "200 delivered(201) /notes",
            ])
        let items = try outbox.items()
        XCTAssertEqual(items.map(\.path), ["/bad"])
        XCTAssertEqual(items.first?.state.error?.statusCode, 422)
        XCTAssertEqual(try outbox.pendingCount(), 0)
    }

    func testItemsOfALane_goOneAtATime_inEnqueueOrder() throws {
        transport.stub(.post, path: "/notes", .status(503, delay: 0.1), .status(201, delay: 0.1))
        let (outbox, _) = try makeOutbox { $0.initialRetryDelay = 1 }
        for (index, text) in ["1", "2", "3"].enumerated() { enqueue(outbox, at: 200 + index, text) }
        scheduler.start()
        let sent = transport.requests.compactMap { $0.value(forHTTPHeaderField: "X-Client-Note") }
        // 1 fails once and is retried before 2 is ever sent.
        XCTAssertEqual(sent, ["1", "1", "2", "3"])
        XCTAssertEqual(try outbox.items().count, 0)
    }

    func testLanes_areIndependent_aStuckLaneHoldsNoOther() throws {
        transport.stub(.post, path: "/stuck", .status(503, delay: 0.1))
        transport.stub(.post, path: "/notes", .status(201, delay: 0.1))
        let (outbox, recorder) = try makeOutbox { $0.maximumAttempts = 3 }
        enqueue(outbox, at: 200, "s", lane: "a", path: "/stuck")
        enqueue(outbox, at: 201, "n1", lane: "b")
        enqueue(outbox, at: 202, "n2", lane: "b")
        scheduler.start()
        let delivered = recorder.events.filter { if case .delivered = $0.event { return true } else { return false } }
        XCTAssertEqual(delivered.map(\.time), [301, 401])
        let items = try outbox.items()
        XCTAssertEqual(items.map(\.lane), ["a"])
        guard case .retryLimitExceeded(let attempts, let last as LeashError)? = items.first?.state.error else {
            return XCTFail("\(items)")
        }
        XCTAssertEqual(attempts, 3)
        XCTAssertEqual(last.statusCode, 503)
    }

    func testUnauthorized_waitsAndRetries_withoutCountingTowardsTheLimit() throws {
        transport.stub(.post, path: "/notes", .status(401), .status(401), .status(401), .status(201))
        let (outbox, recorder) = try makeOutbox { $0.maximumAttempts = 1 }
        enqueue(outbox, at: 200, "a")
        scheduler.start()
        XCTAssertEqual(recorder.timeline.last, "7200 delivered(201) /notes")  // waits of 1, 2 and 4 s
        XCTAssertEqual(transport.requests.count, 4)
    }

    func testPause_stopsNewSends_resumeSendsThem() throws {
        transport.stub(.post, path: "/notes", .status(201))
        let (outbox, recorder) = try makeOutbox()
        scheduler.scheduleAt(100) { outbox.pause() }
        enqueue(outbox, at: 200, "a")
        scheduler.scheduleAt(500) { outbox.resume() }
        scheduler.start()
        XCTAssertEqual(recorder.timeline, ["200 enqueued /notes", "500 sending#1 /notes", "500 delivered(201) /notes"])
    }

    func testCancel_removesAnItemNeverSent_butNotOneSent() throws {
        transport.stub(.post, path: "/notes", .status(503))
        let (outbox, _) = try makeOutbox()
        outbox.pause()
        let waiting = try outbox.enqueue(PostNote(text: "a"))
        XCTAssertTrue(try outbox.cancel(waiting.id))
        XCTAssertFalse(try outbox.cancel(waiting.id))
        let sent = try outbox.enqueue(PostNote(text: "b"))
        outbox.resume()
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertFalse(try outbox.cancel(sent.id))
        XCTAssertEqual(try outbox.items().map(\.id), [sent.id])
    }

    func testRetryOfAFailedItem_sendsItAgain_discardRemovesOne() throws {
        transport.stub(.post, path: "/notes", .status(400), .status(201))
        transport.stub(.post, path: "/other", .status(400))
        let (outbox, _) = try makeOutbox()
        let first = try outbox.enqueue(PostNote(text: "a"))
        let other = try outbox.enqueue(PostNote(text: "b", path: "/other"), lane: "other")
        XCTAssertEqual(try outbox.items().filter(\.state.isFailed).count, 2)
        XCTAssertFalse(try outbox.discard(UUID()))
        XCTAssertTrue(try outbox.retry(first.id))
        XCTAssertTrue(try outbox.discard(other.id))
        XCTAssertEqual(try outbox.items().count, 0)
        XCTAssertEqual(transport.requests.count, 3)
    }

    func testRetryNow_skipsTheWait() throws {
        transport.stub(.post, path: "/notes", .status(503), .status(201))
        let (outbox, recorder) = try makeOutbox { $0.initialRetryDelay = 100 }
        enqueue(outbox, at: 200, "a")
        scheduler.scheduleAt(1000) {
            do { try outbox.retryNow() } catch { XCTFail("\(error)") }
        }
        scheduler.start()
        XCTAssertEqual(recorder.timeline.suffix(2), ["1000 sending#2 /notes", "1000 delivered(201) /notes"])
    }

    func testPurge_removesEverything_andCancelsSendsInFlight() throws {
        transport.stub(.post, path: "/notes", .status(201, delay: 10))
        let (outbox, recorder) = try makeOutbox()
        enqueue(outbox, at: 200, "a")
        enqueue(outbox, at: 201, "b", lane: "other")
        scheduler.scheduleAt(300) { XCTAssertEqual(try? outbox.purge(), 2) }
        scheduler.start()
        XCTAssertEqual(try outbox.items().count, 0)
        XCTAssertFalse(recorder.timeline.contains { $0.contains("delivered") })
    }

    func testEncodingError_isThrownAtEnqueue_andNothingIsStored() throws {
        struct GetWithBody: Endpoint {
            var path: String { "/notes" }
            var method: HTTPMethod { .get }
            var parameters: Any? { Note(text: "x") }
        }
        let (outbox, recorder) = try makeOutbox()
        XCTAssertThrowsError(try outbox.enqueue(GetWithBody())) { error in
            guard case .encoding? = error as? LeashError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(try outbox.items().count, 0)
        XCTAssertTrue(recorder.events.isEmpty)
    }

    func testBodyAboveTheLimit_isRefusedAtEnqueue() throws {
        let (outbox, _) = try makeOutbox { $0.maximumBodySize = 10 }
        XCTAssertThrowsError(try outbox.enqueue(PostNote(text: "longer than ten bytes"))) { error in
            guard case .encoding(let reason, _)? = error as? LeashError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("maximumBodySize"), reason)
        }
        XCTAssertEqual(try outbox.items().count, 0)
    }

    func testRxEnqueue_isCold_andSucceedsOnceStored() throws {
        let (outbox, _) = try makeOutbox()
        outbox.pause()
        let single = outbox.rx.enqueue(PostNote(text: "a"), lane: "notes")
        XCTAssertEqual(try outbox.items().count, 0)
        let item = try single.toBlocking(timeout: 5).single()
        XCTAssertEqual(try outbox.items().map(\.id), [item.id])
        XCTAssertEqual(item.lane, "notes")
    }

    func testPendingCount_followsTheItems() throws {
        transport.stub(.post, path: "/notes", .status(201, delay: 1))
        let (outbox, _) = try makeOutbox()
        let counts = scheduler.createObserver(Int.self)
        let subscription = outbox.rx.pendingCount.subscribe(counts)
        enqueue(outbox, at: 200, "a")
        enqueue(outbox, at: 300, "b")
        scheduler.start()
        subscription.dispose()
        XCTAssertEqual(counts.events.map(\.value.element), [0, 1, 2, 1, 0])
    }
}
