import Foundation
import LeashTestSupport
import LeashTesting
import RxLeash
import RxTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ExecutionContext.mark(_:)`, which the refresh's "one retry per execution" rests on:
/// marks last across an execution's attempts and belong to that execution alone.
final class RefreshExecutionMarksTests: RefreshTestCase {
    /// Retries every 503 the first time only, using a mark; logs what it saw.
    private struct RetryFirst503: OperatorInterceptor {
        let log: RefreshLog

        func intercept(_ upstream: Observable<Response<Data>>, context: ExecutionContext)
            -> Observable<Response<Data>>
        {
            let log = self.log
            return upstream.flatMap { response -> Observable<Response<Data>> in
                let alreadyMarked = context.isMarked("retried")
                let isNew = response.statusCode == 503 && context.mark("retried")
                log.append("attempt \(context.attempt): marked \(alreadyMarked), new \(isNew)")
                return isNew ? context.retry(after: response.error) : .just(response)
            }
        }
    }

    func testMarks_lastAcrossAttempts_andBelongToOneExecution() throws {
        transport.stub(path: "/v1/items", .status(503))
        let log = RefreshLog()
        let client = try makeClient { $0.add(interceptor: RetryFirst503(log: log)) }
        let run = RefreshSubscriptions(scheduler)

        let first = run.subscribe(at: 200) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        let second = run.subscribe(at: 300) { client.eventStream(RefreshEndpoint("items"), as: RefreshItem.self) }
        run.run()

        XCTAssertEqual(
            log.all,
            [
                "attempt 1: marked false, new true", "attempt 2: marked true, new false",
                "attempt 1: marked false, new true", "attempt 2: marked true, new false",
            ])
        XCTAssertEqual(refreshOutcome(first), ["error(503) @ 200"])
        XCTAssertEqual(refreshOutcome(second), ["error(503) @ 300"])
        XCTAssertEqual(transport.requests.count, 4)
    }
}
