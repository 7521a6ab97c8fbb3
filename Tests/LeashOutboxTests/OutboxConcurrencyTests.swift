import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import RxTesting
import XCTest

@testable import LeashOutbox

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One outbox shared by many threads: enqueues, subscribers coming and going, slow and
/// re-entrant subscribers, and a store locked by another connection.
final class OutboxConcurrencyTests: LeakCheckedTestCase {
    private var folder: TransferTestFolder!

    override func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TransferTestFolder(removedAfter: self)
    }

    private func client(_ transport: StubTransport) throws -> Client {
        Client(manager: try Manager.Builder().url("https://api.example.com").transport(transport).build())
    }

    func testManyThreadsEnqueueing_whileSubscribersComeAndGo_deliverEveryItemOnce_inLaneOrder() throws {
        let transport = StubTransport().stub(.post, path: "/notes", .status(503), .status(201))
        let outbox = try Outbox(
            client: client(transport), storedAt: folder.store(),
            options: exactOptions {
                $0.initialRetryDelay = 0.001
            })
        let threads = 8
        let perThread = 40
        let done = expectation(description: "all delivered")
        let drained = outbox.rx.pendingCount.filter { $0 == 0 }.skip(1).take(1)
            .subscribe(onNext: { _ in done.fulfill() })
        DispatchQueue.concurrentPerform(iterations: threads * 2) { index in
            if index < threads {
                for number in 0..<perThread {
                    // Lane = thread, so each lane's order is this loop's order.
                    do {
                        try outbox.enqueue(PostNote(text: "\(index)-\(number)"), lane: "t\(index)")
                    } catch {
                        XCTFail("\(error)")
                    }
                }
            } else {
                for _ in 0..<100 {
                    outbox.rx.events.subscribe(onNext: { _ in }).dispose()
                }
            }
        }
        wait(for: [done], timeout: 30)
        drained.dispose()
        let notes = transport.requests.compactMap { $0.value(forHTTPHeaderField: "X-Client-Note") }
        // Each note was sent once or twice (the stub refuses the first request only), and
        // delivered in its lane's order.
        XCTAssertEqual(Set(notes).count, threads * perThread)
        XCTAssertLessThanOrEqual(notes.count, threads * perThread + 1)
        for thread in 0..<threads {
            let lane = notes.filter { $0.hasPrefix("\(thread)-") }.map { Int($0.split(separator: "-")[1]) ?? -1 }
            XCTAssertEqual(lane.reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }, Array(0..<perThread))
        }
        XCTAssertEqual(try outbox.items().count, 0)
    }

    func testASubscriberThatEnqueuesFromItsHandler_getsItsEventsInOrder() throws {
        let transport = StubTransport().stub(.post, path: "/notes", .status(201))
        let outbox = try Outbox(client: client(transport), storedAt: folder.store())
        let events = SpecLocked<[String]>([])
        let finished = expectation(description: "both delivered")
        finished.expectedFulfillmentCount = 2
        let subscription = outbox.rx.events.subscribe(onNext: { event in
            events.withLock { $0.append("\(EventRecorder.kind(event)) \(event.item.lane)") }
            if case .delivered(let item, _) = event {
                if item.lane == "first" { _ = try? outbox.enqueue(PostNote(text: "b"), lane: "second") }
                finished.fulfill()
            }
        })
        try outbox.enqueue(PostNote(text: "a"), lane: "first")
        wait(for: [finished], timeout: 10)
        subscription.dispose()
        XCTAssertEqual(
            events.withLock { $0 },
            [
                "enqueued first", "sending#1 first", "delivered(201) first", "enqueued second", "sending#1 second",
                "delivered(201) second",
            ])
    }

    func testASlowSubscriber_holdsNoSendBack() throws {
        let sent = expectation(description: "the item went out")
        sent.assertForOverFulfill = false
        let transport = StubTransport().stub(
            matching: { _ in
                sent.fulfill()
                return true
            }, [.status(201)])
        let outbox = try Outbox(client: client(transport), storedAt: folder.store())
        let release = DispatchSemaphore(value: 0)
        let subscription = outbox.rx.events.subscribe(onNext: { event in
            if case .enqueued = event { release.wait() }  // a subscriber stuck in its handler
        })
        DispatchQueue.global().async { _ = try? outbox.enqueue(PostNote(text: "a")) }
        // On the wire while the subscriber still holds its first event.
        wait(for: [sent], timeout: 10)
        release.signal()
        XCTAssertEqual(try outbox.rx.pendingCount.filter { $0 == 0 }.take(1).toBlocking(timeout: 10).first(), 0)
        subscription.dispose()
    }

    func testOpening_waitsOutAnotherConnectionsLock() throws {
        let url = folder.store()
        let locked = DispatchSemaphore(value: 0)
        let released = expectation(description: "lock released")
        DispatchQueue.global().async {
            let holder = try? SQLiteDatabase(path: url.path, create: true)
            try? holder?.execute("BEGIN EXCLUSIVE")
            locked.signal()
            Thread.sleep(forTimeInterval: 0.3)  // how long the other connection keeps its lock
            try? holder?.execute("COMMIT")
            released.fulfill()
        }
        locked.wait()
        let outbox = try Outbox(client: client(StubTransport()), storedAt: url)
        wait(for: [released], timeout: 10)
        XCTAssertEqual(try outbox.pendingCount(), 0)
    }
}
