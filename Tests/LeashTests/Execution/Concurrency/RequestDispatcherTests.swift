import Foundation
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The manager's queue in front of the transport: its limits, its order, and a request
/// removed from it never starts.
final class RequestDispatcherTests: XCTestCase {
    /// Records which queued requests started, in order.
    private final class Starts: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        func record(_ name: String) { lock.withLock { names.append(name) } }
        var all: [String] { lock.withLock { names } }
    }

    func testLimits_perHostAndTotal() {
        let dispatcher = RequestDispatcher(perHost: 2, total: 3)
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        XCTAssertFalse(dispatcher.tryAcquire(host: "a"), "a is full")
        XCTAssertTrue(dispatcher.tryAcquire(host: "b"))
        XCTAssertFalse(dispatcher.tryAcquire(host: "c"), "all are full")
        dispatcher.release(host: "b", hop: false)
        XCTAssertTrue(dispatcher.tryAcquire(host: "c"))
        XCTAssertEqual(dispatcher.counts.running, 3)
    }

    func testQueued_startInOrder_skippingAFullHost_inPlaceWhenAskedTo() {
        let dispatcher = RequestDispatcher(perHost: 1, total: 2)
        let starts = Starts()
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        XCTAssertTrue(dispatcher.tryAcquire(host: "b"))
        let waiters = [("a", "a1"), ("a", "a2"), ("c", "c1")].map { host, name in
            dispatcher.enqueue(host: host) { starts.record(name) }
        }
        XCTAssertTrue(waiters.allSatisfy { $0 != nil })
        XCTAssertEqual(dispatcher.counts.waiting, 3)
        // b's place goes to c1: a1 and a2 wait for a's, which is still taken.
        dispatcher.release(host: "b", hop: false)
        XCTAssertEqual(starts.all, ["c1"])
        dispatcher.release(host: "a", hop: false)
        XCTAssertEqual(starts.all, ["c1", "a1"])
        dispatcher.release(host: "a", hop: false)
        XCTAssertEqual(starts.all, ["c1", "a1", "a2"])
        XCTAssertEqual(dispatcher.counts.waiting, 0)
    }

    func testTotalFull_aFreedPlaceGoesToTheOldestWaiter_whicheverItsHost() {
        let dispatcher = RequestDispatcher(perHost: 2, total: 2)
        let starts = Starts()
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        XCTAssertTrue(dispatcher.tryAcquire(host: "b"))
        let waiters = [("c", "c1"), ("a", "a1"), ("b", "b1"), ("c", "c2")].map { host, name in
            dispatcher.enqueue(host: host) { starts.record(name) }
        }
        XCTAssertTrue(waiters.allSatisfy { $0 != nil })
        // Each freed place goes to the request that waited longest, not to the freed host's.
        dispatcher.release(host: "a", hop: false)
        XCTAssertEqual(starts.all, ["c1"])
        dispatcher.release(host: "b", hop: false)
        XCTAssertEqual(starts.all, ["c1", "a1"])
        waiters[2]?.dispose()
        dispatcher.release(host: "c", hop: false)
        XCTAssertEqual(starts.all, ["c1", "a1", "c2"], "b1 was disposed: its turn went to c2")
        XCTAssertEqual(dispatcher.counts.waiting, 0)
        XCTAssertEqual(dispatcher.counts.running, 2)
    }

    func testDisposedWhileWaiting_neverStarts_andItsTurnGoesToTheNext() {
        let dispatcher = RequestDispatcher(perHost: 1, total: 1)
        let starts = Starts()
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        let first = dispatcher.enqueue(host: "a") { starts.record("first") }
        _ = dispatcher.enqueue(host: "a") { starts.record("second") }
        first?.dispose()
        XCTAssertEqual(dispatcher.counts.waiting, 1)
        dispatcher.release(host: "a", hop: false)
        XCTAssertEqual(starts.all, ["second"])
        XCTAssertEqual(dispatcher.counts.running, 1, "second holds the place")
    }

    func testEnqueue_whenAPlaceFreedUp_saysSo() {
        let dispatcher = RequestDispatcher(perHost: 1, total: 1)
        XCTAssertNil(dispatcher.enqueue(host: "a") { XCTFail("not queued") }, "a place was free: taken at once")
        XCTAssertEqual(dispatcher.counts.running, 1)
    }

    func testReleaseFromAnotherQueue_startsTheNextOffIt() {
        let dispatcher = RequestDispatcher(perHost: 1, total: 1)
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        let started = expectation(description: "started")
        let releasingThread = SpecThreadBox()
        _ = dispatcher.enqueue(host: "a") {
            XCTAssertFalse(releasingThread.isCurrent, "started on the dispatcher's queue")
            started.fulfill()
        }
        releasingThread.run { dispatcher.release(host: "a") }
        wait(for: [started], timeout: 5)
    }

    func testHostKeys_theBaseHostsByPrefix_othersParsed() throws {
        let manager = try Manager.Builder().url("http://Api.example.com:808/v1").build()
        func key(_ url: String, _ manager: Manager) throws -> String {
            manager.dispatcherKey(for: URLRequest(url: try XCTUnwrap(URL(string: url))))
        }
        XCTAssertEqual(try key("http://Api.example.com:808/v1/users?page=2", manager), "api.example.com:808")
        XCTAssertEqual(try key("http://api.example.com:808/other", manager), "api.example.com:808", "any case")
        XCTAssertEqual(try key("http://Api.example.com:8080/x", manager), "api.example.com:8080", "another port")
        XCTAssertEqual(try key("https://cdn.example.com/a.png", manager), "cdn.example.com")
        let plain = try Manager.Builder().url("http://api.example.com").build()
        XCTAssertEqual(try key("http://api.example.com?q=1", plain), "api.example.com")
        XCTAssertEqual(try key("http://api.example.com.evil.net/x", plain), "api.example.com.evil.net")
    }

    func testHostKey_isTheRequestsHostInLowerCase_withItsPort() throws {
        func key(_ url: String) throws -> String {
            RequestDispatcher.hostKey(of: URLRequest(url: try XCTUnwrap(URL(string: url))))
        }
        XCTAssertEqual(try key("https://API.Example.com:8443/x"), "api.example.com:8443")
        XCTAssertEqual(try key("https://api.example.com/x"), "api.example.com", "no port given, none added")
        XCTAssertEqual(try key("file:///tmp/x"), "", "no host")
    }

    func testAPlaceGivenBack_throughItsDispatcherPlace_startsTheNextWaiter() {
        let dispatcher = RequestDispatcher(perHost: 1, total: 1)
        let starts = Starts()
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        _ = dispatcher.enqueue(host: "a") { starts.record("next") }

        DispatcherPlace(dispatcher: dispatcher, host: "a").release(hop: false)

        XCTAssertEqual(starts.all, ["next"])
        XCTAssertEqual(dispatcher.counts.running, 1)
    }

    func testCancelWaiting_dropsTheWaitingAndThosePromotedButNotStarted() {
        let startQueue = DispatchQueue(label: "starts")
        let dispatcher = RequestDispatcher(perHost: 1, total: 1, startQueue: startQueue)
        XCTAssertTrue(dispatcher.tryAcquire(host: "a"))
        _ = dispatcher.enqueue(host: "a") { XCTFail("promoted before cancelWaiting, started after it") }
        _ = dispatcher.enqueue(host: "a") { XCTFail("waiting when cancelWaiting came") }
        // The first is promoted, to start on the (held) start queue; cancelWaiting comes
        // before it runs.
        startQueue.suspend()
        dispatcher.release(host: "a")
        XCTAssertEqual(dispatcher.counts.running, 1, "the promoted request holds the place")
        dispatcher.cancelWaiting()
        XCTAssertEqual(dispatcher.counts.waiting, 0)
        startQueue.resume()
        startQueue.sync {}
        XCTAssertEqual(dispatcher.counts.running, 0, "its place came back, unused")
    }

    func testManyThreads_queueingDisposingAndReleasing_keepTheCountsRight() {
        let dispatcher = RequestDispatcher(perHost: 3, total: 5)
        let hosts = ["a", "b", "c"]
        DispatchQueue.concurrentPerform(iterations: 2_000) { index in
            let host = hosts[index % hosts.count]
            if dispatcher.tryAcquire(host: host) {
                dispatcher.release(host: host, hop: false)
                return
            }
            let waiter = dispatcher.enqueue(host: host) { dispatcher.release(host: host, hop: false) }
            if index % 2 == 0 {
                waiter?.dispose()
            } else if waiter == nil {
                dispatcher.release(host: host, hop: false)
            }
        }
        // Whatever is still queued waits for a place nobody holds: none may be left.
        let counts = dispatcher.counts
        XCTAssertEqual(counts.running, 0)
        XCTAssertEqual(counts.waiting, 0)
    }
}

/// Runs a closure on a thread of its own and knows whether code runs there.
private final class SpecThreadBox: @unchecked Sendable {
    private let lock = NSLock()
    private var thread: Thread?

    var isCurrent: Bool { lock.withLock { thread } === Thread.current }

    func run(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { body() }
        lock.withLock { self.thread = thread }
        thread.start()
    }
}
