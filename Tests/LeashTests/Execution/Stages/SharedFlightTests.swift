import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `SharedFlight`, the one request of a flight of identical GETs: sent once, answered to
/// every execution in the flight (a completion without a response as `invalidResponse`),
/// taking a place among the manager's limits and giving it back once, and cancelled by a
/// dispose whether it still waits for its place (then it is never sent) or is on its way.
final class SharedFlightTests: PipelineTestCase {
    private let request = URLRequest(url: executionTestURL)

    /// A manager over `transport`, with one place in all if `limited`.
    private func manager(_ transport: HeldTransport, limited: Bool = false) throws -> Manager {
        try makePipelineClient(transport) { builder in
            if limited { builder.maximumRequests(perHost: 1, total: 1) }
        }.manager
    }

    /// Opens a flight in `flights` with subscribers `a` and `b` recording into `log`, and
    /// starts its shared request. (An unanswered flight is left by its subscribers at the
    /// end of a test: the table holds the request, which answers to the table.)
    private func startFlight(_ manager: Manager, _ flights: InFlightRequests, _ log: PipelineLog) throws
        -> (SharedFlight, [InFlightRequests.Ticket])
    {
        let key = try XCTUnwrap(SharingKey(sharing: request))
        let tickets = ["a", "b"].map { name in
            flights.join(
                key,
                AnyObserver { event in
                    switch event {
                    case .next(let response): log.append("\(name) next \(response.httpResponse.statusCode)")
                    case .error(let error): log.append("\(name) error \(executionErrorName(error))")
                    case .completed: log.append("\(name) completed")
                    }
                })
        }
        let shared = SharedFlight.start(request, manager: manager, flight: tickets[0].flight, flights: flights)
        try XCTUnwrap(tickets[0].connection).setDisposable(shared)
        return (shared, tickets)
    }

    func testTheRequestIsSentOnce_andItsAnswerGoesToEveryExecutionInTheFlight() throws {
        let transport = HeldTransport()
        let flights = InFlightRequests()
        let log = PipelineLog()
        _ = try startFlight(try manager(transport), flights, log)

        XCTAssertEqual(transport.requests.count, 1)
        transport.requests[0].answer(200)

        XCTAssertEqual(Set(log.all), ["a next 200", "a completed", "b next 200", "b completed"])
        XCTAssertEqual(log.count, 4)
        XCTAssertEqual(flights.count, 0)
    }

    func testACompletionWithoutAResponse_isInvalidResponse_forEveryExecution() throws {
        let transport = HeldTransport()
        let log = PipelineLog()
        _ = try startFlight(try manager(transport), InFlightRequests(), log)

        transport.requests[0].completeWithoutAnswer()

        XCTAssertEqual(Set(log.all), ["a error invalidResponse", "b error invalidResponse"])
    }

    func testDisposing_cancelsTheRequestOnItsWay() throws {
        let transport = HeldTransport()
        let flights = InFlightRequests()
        let (shared, tickets) = try startFlight(try manager(transport), flights, PipelineLog())

        shared.dispose()
        shared.dispose()

        XCTAssertEqual(transport.requests.map(\.disposeCount), [1])
        for ticket in tickets { flights.leave(ticket) }
        XCTAssertEqual(transport.requests.map(\.disposeCount), [1], "disposed once")
    }

    func testWaitingForAPlace_disposingRemovesIt_andItIsNeverSent() throws {
        let transport = HeldTransport()
        let manager = try manager(transport, limited: true)
        let dispatcher = try XCTUnwrap(manager.dispatcher)
        let host = manager.dispatcherKey(for: request)
        XCTAssertTrue(dispatcher.tryAcquire(host: host))
        let flights = InFlightRequests()
        let (shared, tickets) = try startFlight(manager, flights, PipelineLog())
        XCTAssertEqual(dispatcher.counts.waiting, 1)

        shared.dispose()
        dispatcher.release(host: host, hop: false)
        for ticket in tickets { flights.leave(ticket) }

        XCTAssertTrue(transport.requests.isEmpty)
        XCTAssertEqual(dispatcher.counts.running, 0)
        XCTAssertEqual(dispatcher.counts.waiting, 0)
    }

    func testWaitingForAPlace_isSentWhenOneFreesUp_andGivesItBackOnceWhenAnswered() throws {
        let transport = HeldTransport()
        let manager = try manager(transport, limited: true)
        let dispatcher = try XCTUnwrap(manager.dispatcher)
        let host = manager.dispatcherKey(for: request)
        XCTAssertTrue(dispatcher.tryAcquire(host: host))
        let log = PipelineLog()
        let (shared, _) = try startFlight(manager, InFlightRequests(), log)
        XCTAssertTrue(transport.requests.isEmpty, "no place yet")

        dispatcher.release(host: host, hop: false)
        XCTAssertEqual(transport.requests.count, 1)
        XCTAssertEqual(dispatcher.counts.running, 1, "the flight holds the place")
        transport.requests[0].answer(200)
        shared.dispose()

        XCTAssertEqual(dispatcher.counts.running, 0, "given back once: neither kept nor given back twice")
        XCTAssertEqual(log.count, 4)
    }
}
