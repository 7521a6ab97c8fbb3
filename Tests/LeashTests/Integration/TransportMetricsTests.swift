import Foundation
import LeashTestSupport
import LoopbackServer
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Metrics come with every response of the default transport (`HTTP1Transport` on Linux,
/// URLSession elsewhere), and from `URLSessionTransport` where URLSession collects them (Apple
/// platforms, and the Apple-branches build's bookkeeping on Linux); the bookkeeping never
/// outlives a task.
final class TransportMetricsTests: LoopbackIntegrationCase {
    func testMetrics_comeWithEveryResponseOfTheDefaultTransport() throws {
        try XCTSkipUnless(Manager.defaultTransport is HTTP1Transport, "the other test covers URLSession")
        // A transport of its own (the default's kind), so that its pool holds only this
        // test's connection.
        let transport = HTTP1Integration.transport()
        let client = try makeClient { $0.transport(transport) }
        let first = try outcome(client, SpecEndpoint("/json"), DataResponseSerializer())
        XCTAssertEqual(first.statusCode, 200)
        let metrics = try XCTUnwrap(first.details?.metrics)
        XCTAssertEqual(metrics.transactions.last?.responseBodyBytes, Int64(first.data?.count ?? -1))
        XCTAssertEqual(metrics.redirectCount, 0, "Leash follows redirects, not the transport")
        // An execution's event stream is told of its end in place, on the connection's queue,
        // before the connection goes back to the pool (so that a request made and waited for
        // in that callback does not wait on the queue it holds): the second request starts
        // once the connection is back.
        XCTAssertTrue(HTTP1Integration.eventually { transport.pool.counts == (idle: 1, busy: 0) })
        let second = try XCTUnwrap(
            try outcome(client, SpecEndpoint("/json"), DataResponseSerializer()).details?.metrics)
        do {
            // `HTTP1Transport`: every phase it went through, and the kept-alive connection.
            let transaction = try XCTUnwrap(second.transactions.first)
            XCTAssertEqual(transaction.networkProtocol, "http/1.1")
            XCTAssertTrue(transaction.isReusedConnection, "the second request reuses the first's connection")
            XCTAssertNil(transaction.connectStart, "no connect for a reused connection")
            XCTAssertNotNil(metrics.transactions.first?.connectStart, "the first request connected")
            let requestStart = try XCTUnwrap(transaction.requestStart)
            let responseStart = try XCTUnwrap(transaction.responseStart)
            let responseEnd = try XCTUnwrap(transaction.responseEnd)
            XCTAssertLessThanOrEqual(requestStart, responseStart)
            XCTAssertLessThanOrEqual(responseStart, responseEnd)
            XCTAssertGreaterThan(transaction.requestHeaderBytes, 0)
            XCTAssertGreaterThan(transaction.responseHeaderBytes, 0)
        }
    }

    func testMetrics_ofURLSessionTransport_areThereExactlyWhereThePlatformCollectsThem() throws {
        let client = try makeClient { $0.transport(URLSessionTransport()) }
        let response = try outcome(client, SpecEndpoint("/json"), DataResponseSerializer())
        XCTAssertEqual(response.statusCode, 200)
        #if canImport(FoundationNetworking)
            // FoundationNetworking never reports metrics to a session's delegate.
            XCTAssertNil(response.details?.metrics)
        #else
            let metrics = try XCTUnwrap(response.details?.metrics)
            XCTAssertEqual(metrics.transactions.last?.responseBodyBytes, Int64(response.data?.count ?? -1))
        #endif
    }

    func testTaskRoutes_areForgottenWhenTasksEnd_finishedOrCancelled() throws {
        let transport = URLSessionTransport()
        let client = try makeClient { $0.transport(transport) }
        server.route("GET", "/slow", response: LoopbackResponse(body: Data("late".utf8), delay: 5))
        for _ in 0..<20 {
            _ = try outcome(client, SpecEndpoint("/json"), DataResponseSerializer())
        }
        // Cancelled while waiting, and disposed before the task could start.
        for _ in 0..<20 {
            client.eventStream(SpecEndpoint("/slow"), serializer: DataResponseSerializer()).subscribe().dispose()
        }
        let started = client.eventStream(SpecEndpoint("/slow"), serializer: DataResponseSerializer()).subscribe()
        waitForServer("the slow request arrived") { $0.requestCount >= 21 }
        started.dispose()
        let deadline = Date(timeIntervalSinceNow: 5)
        // Cancelled tasks report on URLSession's queue a moment after the dispose: polled, as no
        // event tells when.
        while transport.delegate.taskCount > 0, Date() < deadline {
            RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
        }
        XCTAssertEqual(transport.delegate.taskCount, 0)
    }
}
