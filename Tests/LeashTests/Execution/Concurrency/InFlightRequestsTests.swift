import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `InFlightRequests`, the table of identical requests in flight: the first subscriber
/// opens a flight and connects it, the next ones join it, the answer goes to every one of
/// them (with its completion) and closes the flight, and the last one to leave an
/// unfinished flight cancels its request.
final class InFlightRequestsTests: XCTestCase {
    private let key = SharingKey(sharing: URLRequest(url: executionTestURL))!

    /// An observer that records what it is told as `next <status>`, `error` or `completed`.
    private func recorder(_ log: PipelineLog, _ name: String) -> AnyObserver<TransportResponse> {
        AnyObserver { event in
            switch event {
            case .next(let response): log.append("\(name) next \(response.httpResponse.statusCode)")
            case .error(let error): log.append("\(name) error \(executionErrorName(error))")
            case .completed: log.append("\(name) completed")
            }
        }
    }

    private var answer: Event<TransportResponse> {
        .next(TransportResponse(httpResponse: executionTestResponse(200), data: Data()))
    }

    func testFirstSubscriberOpensAndConnects_theNextJoinTheSameFlight() {
        let flights = InFlightRequests()
        let log = PipelineLog()
        let first = flights.join(key, recorder(log, "a"))
        let second = flights.join(key, recorder(log, "b"))

        XCTAssertNotNil(first.connection, "the opener connects the flight")
        XCTAssertNil(second.connection, "a joiner does not send a second request")
        XCTAssertEqual(first.flight, second.flight)
        XCTAssertNotEqual(first.subscriber, second.subscriber)
        XCTAssertEqual(flights.count, 1)

        let otherKey = SharingKey(sharing: URLRequest(url: URL(string: "https://other.example.com/")!))!
        let other = flights.join(otherKey, recorder(log, "c"))
        XCTAssertNotNil(other.connection, "another request opens its own flight")
        XCTAssertEqual(flights.count, 2)
        flights.leave(first)
        flights.leave(second)
        flights.leave(other)
        XCTAssertEqual(flights.count, 0)
    }

    func testTheAnswer_goesToEverySubscriberWithItsCompletion_andClosesTheFlight() {
        let flights = InFlightRequests()
        let log = PipelineLog()
        let first = flights.join(key, recorder(log, "a"))
        _ = flights.join(key, recorder(log, "b"))

        flights.deliver(answer, flight: first.flight)
        flights.deliver(.completed, flight: first.flight)

        XCTAssertEqual(Set(log.all), ["a next 200", "a completed", "b next 200", "b completed"])
        XCTAssertEqual(log.count, 4, "the transport's own completion finds the flight gone")
        XCTAssertEqual(flights.count, 0)
        let later = flights.join(key, recorder(log, "c"))
        XCTAssertNotNil(later.connection, "an answered flight is not joined: a new one opens")
        XCTAssertNotEqual(later.flight, first.flight)
        flights.leave(later)
    }

    func testAFailure_goesToEverySubscriberAlone() {
        let flights = InFlightRequests()
        let log = PipelineLog()
        let first = flights.join(key, recorder(log, "a"))
        _ = flights.join(key, recorder(log, "b"))

        flights.deliver(.error(LeashError.cancelled), flight: first.flight)

        XCTAssertEqual(Set(log.all), ["a error cancelled", "b error cancelled"])
        XCTAssertEqual(flights.count, 0)
    }

    /// Subscribers `a` and `b` of one flight in `flights`, connected to `request`.
    private func connectedFlight(_ flights: InFlightRequests, _ log: PipelineLog, _ request: Disposable) throws
        -> (InFlightRequests.Ticket, InFlightRequests.Ticket)
    {
        let first = flights.join(key, recorder(log, "a"))
        let second = flights.join(key, recorder(log, "b"))
        try XCTUnwrap(first.connection).setDisposable(request)
        return (first, second)
    }

    func testLeaving_cancelsTheRequestOnlyWhenTheLastSubscriberLeaves() throws {
        let (flights, log, request) = (InFlightRequests(), PipelineLog(), CountingDisposable())
        let (first, second) = try connectedFlight(flights, log, request)

        flights.leave(first)
        XCTAssertEqual(request.disposeCount, 0, "b still waits for the answer")
        flights.deliver(answer, flight: first.flight)
        XCTAssertEqual(log.all, ["b next 200", "b completed"], "who left hears nothing")
        flights.leave(second)
        XCTAssertEqual(request.disposeCount, 0, "an answered flight has nothing to cancel")
    }

    func testTheLastToLeave_cancelsTheRequest_once_andTheFlightCanNoLongerBeJoined() throws {
        let (flights, log, request) = (InFlightRequests(), PipelineLog(), CountingDisposable())
        let (first, second) = try connectedFlight(flights, log, request)

        flights.leave(second)
        flights.leave(first)
        flights.leave(first)

        XCTAssertEqual(request.disposeCount, 1)
        XCTAssertEqual(flights.count, 0)
        let next = flights.join(key, recorder(log, "c"))
        XCTAssertNotNil(next.connection, "a cancelled flight is not joined")
        flights.leave(next)
        XCTAssertEqual(log.all, [])
    }

    func testJoiningLeavingAndAnswering_onManyThreads_everyStayingSubscriberGetsOneAnswer() {
        let flights = InFlightRequests()
        let answered = SpecLocked<[Int: Int]>([:])
        let tickets = SpecLocked<[InFlightRequests.Ticket]>([])
        let count = 2_000
        let (key, answer) = (self.key, self.answer)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let ticket = flights.join(
                key,
                AnyObserver { event in
                    if case .next = event { answered.withLock { $0[index, default: 0] += 1 } }
                })
            if index % 3 == 0 {
                flights.leave(ticket)
            } else {
                tickets.withLock { $0.append(ticket) }
            }
            if index % 50 == 0 { flights.deliver(answer, flight: ticket.flight) }
        }
        // The flights still open get their answers now.
        for flight in Set(tickets.value.map(\.flight)) { flights.deliver(answer, flight: flight) }

        XCTAssertEqual(flights.count, 0)
        XCTAssertTrue(answered.value.values.allSatisfy { $0 == 1 }, "a subscriber was answered twice")
        let stayed = (0..<count).filter { $0 % 3 != 0 }
        XCTAssertEqual(stayed.filter { answered.value[$0] == nil }, [], "a subscriber that stayed was never answered")
    }
}
