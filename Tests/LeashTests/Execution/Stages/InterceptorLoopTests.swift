import Dispatch
import Foundation
import LeashTestSupport
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `InterceptorLoop`, the one loop every stage runs its interceptors through: each starts
/// only when the one before it called its chain back, in the order added; `proceed(with:)`
/// replaces the request for the later ones where the stage adapts; interim values are
/// reported and the run goes on; a completion or a retry ends it (a refused retry carries
/// the stage's cause); and once the host is not live, late calls back run nothing.
final class InterceptorLoopTests: XCTestCase {
    /// A host that records what the loop reports, live until told otherwise.
    private final class Host: StageHost, @unchecked Sendable {
        // @unchecked: the state is locked.
        typealias Stage = String
        typealias Output = Data

        let log: PipelineLog
        private let live = SpecLocked(true)

        init(_ log: PipelineLog) { self.log = log }

        var isLive: Bool { live.value }
        func end() { live.withLock { $0 = false } }

        func stage(_ stage: String, reported result: StageResult<Data>) {
            switch result {
            case .proceed(let context): log.append("\(stage) proceed \(context.request.urlRequest?.url?.query ?? "-")")
            case .interim(let response): log.append("\(stage) interim \(describe(response))")
            case .complete(let response): log.append("\(stage) complete \(describe(response))")
            case .retry: log.append("\(stage) retry")
            }
        }

        private func describe(_ response: Response<Data>) -> String {
            response.value.map { String(decoding: $0, as: UTF8.self) } ?? executionErrorName(response.error)
        }
    }

    /// An interceptor of the test: what it does with its chain.
    private struct Step {
        let run: (InterceptorChain<Data>) -> Void
    }

    private var client: Client!

    override func setUpWithError() throws {
        try super.setUpWithError()
        client = try makePipelineClient(HeldTransport()) { $0.maximumRetryCount(1) }
    }

    override func tearDown() {
        client = nil
        super.tearDown()
    }

    private func context(attempt: Int = 1) -> ExecutionContext {
        ExecutionContext(
            client: client, endpoint: PipelineEndpoint(), request: DataRequest(URLRequest(url: executionTestURL)),
            attempt: attempt)
    }

    private func run(
        _ steps: [Step], host: Host, adapts: Bool = false, cause: Swift.Error? = nil, attempt: Int = 1
    ) {
        InterceptorLoop(interceptors: steps, host: host, stage: "stage", cause: cause, adapts: adapts) { step, chain in
            step.run(chain)
        }
        .run(context: context(attempt: attempt))
    }

    func testEachRunsOnlyWhenThePreviousCalledBack_inTheOrderAdded() {
        let log = PipelineLog()
        let held = PipelineHeldChains()
        let steps = (1...3).map { number in
            Step { chain in
                log.append("\(number)")
                held.hold(chain)
            }
        }

        run(steps, host: Host(log))
        XCTAssertEqual(log.all, ["1"], "the second waits for the first")
        for called in 1...3 {
            // Called back from a thread of its own, after `intercept` returned.
            let chain = held.last
            Thread { chain?.proceed() }.start()
            waitForPipelineCondition("what follows interceptor \(called)") { log.count == called + 1 }
        }
        held.releaseAll()

        XCTAssertEqual(log.all, ["1", "2", "3", "stage proceed -"])
    }

    func testWithoutInterceptors_theStageProceedsAtOnce() {
        let log = PipelineLog()
        run([], host: Host(log))
        XCTAssertEqual(log.all, ["stage proceed -"])
    }

    func testProceedWithARequest_replacesItForTheLaterOnes_onlyWhereTheStageAdapts() {
        let adapted = URLRequest(url: URL(string: "https://api.example.com/v1/users/1?signed=1")!)
        let steps = [
            Step { $0.proceed(with: adapted) },
            Step { $0.proceed() },
        ]
        let adapting = PipelineLog()
        run(steps, host: Host(adapting), adapts: true)
        let other = PipelineLog()
        run(steps, host: Host(other), adapts: false)

        XCTAssertEqual(adapting.all, ["stage proceed signed=1"])
        XCTAssertEqual(other.all, ["stage proceed -"], "elsewhere proceed(with:) is proceed()")
    }

    func testAnInterimValue_isReported_andTheRunGoesOn_untilACompletionEndsIt() {
        let log = PipelineLog()
        let steps = [
            Step { chain in
                chain.complete(with: Data("cached".utf8), finish: false)
                chain.proceed()
            },
            Step { $0.complete(with: Data("done".utf8)) },
            Step { _ in log.append("third") },
        ]

        run(steps, host: Host(log))

        XCTAssertEqual(log.all, ["stage interim cached", "stage complete done"], "the third never ran")
    }

    func testARetry_isReported_andARefusedOneThrowsWithTheStagesCause() {
        let log = PipelineLog()
        let refusals = PipelineLog()
        let retrying = Step { chain in
            do { try chain.retry() } catch { refusals.append(executionErrorName(error)) }
        }

        run([retrying], host: Host(log), cause: LeashError.cancelled, attempt: 1)
        run([retrying], host: Host(log), cause: LeashError.cancelled, attempt: 2)

        XCTAssertEqual(log.all, ["stage retry"], "attempt 2 has no retry left")
        XCTAssertEqual(refusals.all, ["retryLimitExceeded(2, cancelled)"])
    }

    func testOnceTheHostIsNotLive_aLateCallBackRunsNothing() {
        let log = PipelineLog()
        let held = PipelineHeldChains()
        let host = Host(log)
        let steps = [
            Step { held.hold($0) },
            Step { _ in log.append("second") },
        ]
        run(steps, host: host)

        host.end()
        held.last?.complete(with: Data("late".utf8), finish: false)
        held.last?.proceed()
        run(steps, host: host)

        XCTAssertEqual(log.all, [])
        XCTAssertEqual(held.count, 1, "a run for a host not live starts nothing")
        held.releaseAll()
    }
}
