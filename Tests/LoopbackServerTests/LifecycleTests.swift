#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation
import LoopbackServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Start, stop, deinit, errors, counters and concurrency.
final class LifecycleTests: LoopbackTestCase {
    func testBaseURL_isLoopbackOnTheBoundPort() throws {
        let server = try makeServer()
        XCTAssertGreaterThan(server.port, 0)
        XCTAssertEqual(server.baseURL.absoluteString, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(
            server.url(path: "echo", queryItems: [URLQueryItem(name: "q", value: "a b")]).absoluteString,
            "http://127.0.0.1:\(server.port)/echo?q=a%20b")
        XCTAssertTrue(server.isRunning)
    }

    func testKeepAlive_oneSessionReusesOneConnection() throws {
        let server = try makeServer()
        let session = makeSession()
        for _ in 0..<5 {
            XCTAssertEqual(fetch(server.url(path: "/json"), on: session).status, 200)
        }
        XCTAssertEqual(server.counters.requestCount, 5)
        XCTAssertEqual(server.counters.connectionCount, 1)
    }

    func testSixtyFourConcurrentRequests_allAnsweredCorrectly() throws {
        let server = try makeServer()
        for session in [makeSession(), makeSession(maximumConnectionsPerHost: 64)] {
            server.resetCounters()
            let answers = Locked<[Int: String]>([:])
            let group = DispatchGroup()
            for index in 0..<64 {
                group.enter()
                let url = server.url(path: "/echo", queryItems: [URLQueryItem(name: "i", value: "\(index)")])
                session.dataTask(with: url) { data, _, _ in
                    let echo = data.flatMap { try? JSONDecoder().decode(LoopbackServer.EchoedRequest.self, from: $0) }
                    answers.withLock { $0[index] = echo?.queryItems.first?.value ?? "failed" }
                    group.leave()
                }.resume()
            }
            XCTAssertEqual(group.wait(timeout: .now() + 60), .success)
            XCTAssertEqual(answers.value, Dictionary(uniqueKeysWithValues: (0..<64).map { ($0, "\($0)") }))
            XCTAssertEqual(server.counters.requestCount, 64)
            XCTAssertLessThanOrEqual(server.counters.connectionCount, 64)
        }
    }

    func testSixtyFourConcurrentDelayedRequests_runInParallel() throws {
        let server = try makeServer()
        let started = Date()
        let clients = try (0..<64).map { _ in try RawClient(port: server.port) }
        for client in clients { try client.send("GET /delay/500 HTTP/1.1\r\n\r\n") }
        for client in clients { XCTAssertEqual(try client.readResponse().status, 200) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "64 × 0.5 s delays overlap")
        XCTAssertEqual(server.counters.connectionCount, 64)
    }

    func testStop_closesTheListenerAndEveryConnection() throws {
        let server = try makeServer()
        let idle = try RawClient(port: server.port)
        try idle.send("GET /json HTTP/1.1\r\n\r\n")
        XCTAssertEqual(try idle.readResponse().status, 200)
        let hanging = try RawClient(port: server.port)
        try hanging.send("GET /hang HTTP/1.1\r\n\r\n")
        let delayed = try RawClient(port: server.port)
        try delayed.send("GET /delay/60000 HTTP/1.1\r\n\r\n")
        let halfSent = try RawClient(port: server.port)
        try halfSent.send("POST /echo HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc")
        let session = makeSession()
        let finished = expectation(description: "URLSession task ends")
        let taskError = Locked<(any Error)?>(nil)
        session.dataTask(with: server.url(path: "/hang")) { _, _, error in
            taskError.withLock { $0 = error }
            finished.fulfill()
        }.resume()
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 4 && $0.openConnectionCount == 5 })

        server.stop()

        XCTAssertFalse(server.isRunning)
        for client in [idle, hanging, delayed, halfSent] {
            XCTAssertTrue(client.serverClosed())
        }
        wait(for: [finished], timeout: 10)
        XCTAssertNotNil(taskError.value)
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.openConnectionCount == 0 })
        XCTAssertEqual(server.counters.clientDisconnectCount, 0, "closing by the server is not a client disconnect")
        XCTAssertThrowsError(try RawClient(port: server.port)) { error in
            XCTAssertEqual(error as? RawClientError, .connectFailed(errno: ECONNREFUSED))
        }
        server.stop()
        server.start()
        XCTAssertFalse(server.isRunning, "a stopped server stays stopped")
    }

    func testDeinit_stopsTheServer() throws {
        var server: LoopbackServer? = try LoopbackServer()
        server?.start()
        let port = try XCTUnwrap(server?.port)
        let client = try RawClient(port: port)
        try client.send("GET /hang HTTP/1.1\r\n\r\n")
        XCTAssertTrue(server?.waitUntil(timeout: 10) { $0.requestCount == 1 } ?? false)
        weak let weakServer = server
        server = nil
        XCTAssertNil(weakServer)
        XCTAssertTrue(client.serverClosed())
        XCTAssertThrowsError(try RawClient(port: port))
    }

    func testNotStarted_acceptsIntoTheBacklogAndAnswersOnceStarted() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        XCTAssertFalse(server.isRunning)
        let client = try RawClient(port: server.port)
        try client.send("GET /json HTTP/1.1\r\n\r\n")
        server.start()
        server.start()
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertEqual(server.counters.connectionCount, 1)
    }

    func testStopBeforeStart_closesTheListener() throws {
        let server = try LoopbackServer()
        server.stop()
        XCTAssertThrowsError(try RawClient(port: server.port))
    }

    func testBindingATakenPort_throwsATypedError() throws {
        let server = try makeServer()
        XCTAssertThrowsError(try LoopbackServer(port: UInt16(server.port))) { error in
            XCTAssertEqual(error as? LoopbackServerError, .bindFailed(port: UInt16(server.port), errno: EADDRINUSE))
            XCTAssertTrue("\(error)".contains("bind(127.0.0.1:\(server.port))"), "\(error)")
        }
    }

    func testCounters_resetAndWaitUntil() throws {
        let server = try makeServer()
        let session = makeSession()
        XCTAssertFalse(server.waitUntil(timeout: 0.05) { $0.requestCount > 0 }, "times out when nothing happens")
        XCTAssertEqual(fetch(server.url(path: "/json"), on: session).status, 200)
        XCTAssertEqual(server.requestCount, 1)
        XCTAssertEqual(server.connectionCount, 1)
        XCTAssertEqual(server.openConnectionCount, 1)
        server.resetCounters()
        XCTAssertEqual(server.counters.requestCount, 0)
        XCTAssertEqual(server.counters.connectionCount, 0)
        XCTAssertEqual(server.counters.openConnectionCount, 1, "open connections are a gauge, not reset")

        let fired = expectation(description: "request sent from another thread")
        DispatchQueue.global().async {
            session.dataTask(with: server.url(path: "/delay/100")) { _, _, _ in fired.fulfill() }.resume()
        }
        XCTAssertTrue(server.waitUntil(timeout: 10) { $0.requestCount == 1 && server.requestCount == 1 })
        wait(for: [fired], timeout: 10)
    }
}
