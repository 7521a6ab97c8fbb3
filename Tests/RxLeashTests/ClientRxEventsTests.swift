import Foundation
import LeashTesting
import RxLeash
import RxTesting
import LeashTestSupport
import XCTest

/// `client.rx.events`: the execution's own events, at their times.
final class ClientRxEventsTests: VirtualTimeTestCase {
    func testEvents_reportEachStageAtItsTime_thenTheValue() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 5))
        let client = try makeClientRxClient(transport, scheduler: scheduler)

        let observer = scheduler.start { client.rx.events(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(
            clientRxTimeline(observer, clientRxName),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "downloadProgress(23/23) @ 205",
                "responseReceived(200, 1) @ 205",
                "value(\(specAlice), network) @ 205", "completed @ 205",
            ])
    }

    func testEvents_retry_isReportedBeforeTheSecondAttempt() throws {
        transport.stub(path: "/v1/users/1", .status(503), .json(specAliceJSON, delay: 2))
        let client = try makeClientRxClient(transport, scheduler: scheduler) {
            $0.add(interceptor: ClientRxRetryAfterDelay(scheduler: self.scheduler, ticks: 10))
        }

        let observer = scheduler.start { client.rx.events(ClientRxGetUser(id: 1)) }

        XCTAssertEqual(
            clientRxTimeline(observer, clientRxName),
            [
                "requestPrepared(1) @ 200", "requestSent(1) @ 200", "responseReceived(503, 1) @ 200",
                "retrying(2) @ 210", "requestPrepared(2) @ 210", "requestSent(2) @ 210",
                "downloadProgress(23/23) @ 212", "responseReceived(200, 2) @ 212", "value(\(specAlice), network) @ 212",
                "completed @ 212",
            ])
    }

    func testEvents_customSerializer_carriesTheSerializersValues() throws {
        transport.stub(path: "/v1/users/1", .json(specAliceJSON, delay: 1))
        let client = try makeClientRxClient(transport, scheduler: scheduler)

        let observer = scheduler.start {
            client.rx.events(ClientRxEndpoint(), serializer: StringResponseSerializer()).compactMap { $0.value }
        }

        XCTAssertEqual(observer.events, [.next(201, specAliceJSON), .completed(201)])
    }

    func testEvents_failure_endsTheStreamWithTheError() throws {
        transport.stub(path: "/v1/users/1", .status(500, delay: 1))
        let client = try makeClientRxClient(transport, scheduler: scheduler)

        let observer = scheduler.start { client.rx.events(ClientRxEndpoint(), type: SpecUser.self) }

        XCTAssertEqual(clientRxTimeline(observer, clientRxName).count, 4, "\(observer.events)")
        XCTAssertEqual(observer.events.last?.time, 201)
        XCTAssertEqual((clientRxError(observer) as? LeashError)?.statusCode, 500)
    }
}
