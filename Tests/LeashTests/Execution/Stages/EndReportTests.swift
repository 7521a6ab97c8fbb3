import Dispatch
import Foundation
import LeashTesting
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `EndReport`, one execution's end for the manager's end observers: made only when there
/// are observers, it tells every observer once, with the first outcome reported and the
/// last attempt that began, and lets go of that attempt once told, however many threads
/// report the end at once.
final class EndReportTests: XCTestCase {
    /// An observer that keeps only the outcomes it is told of (not the ends, which hold the
    /// last attempt).
    private final class OutcomeCounter: ExecutionEndObserver, @unchecked Sendable {
        // @unchecked: the list is locked.
        private let outcomes = SpecLocked<[String]>([])
        func executionDidEnd(_ end: ExecutionEnd) {
            outcomes.withLock { $0.append("\(end.outcome) after \(end.attempts)") }
        }
        var all: [String] { outcomes.value }
    }

    private var client: Client!

    override func setUpWithError() throws {
        try super.setUpWithError()
        client = try makePipelineClient(StubTransport())
    }

    override func tearDown() {
        client = nil
        super.tearDown()
    }

    private func context(attempt: Int, ending: EndReport) -> ExecutionContext {
        ExecutionContext(
            client: client, endpoint: PipelineEndpoint(), request: DataRequest(URLRequest(url: executionTestURL)),
            attempt: attempt, ending: ending)
    }

    func testWithoutObservers_thereIsNoReport() {
        XCTAssertNil(EndReport(observers: []))
    }

    func testEveryObserverIsToldOnce_theFirstOutcome_withTheLastAttemptThatBegan() throws {
        let first = EndRecorder()
        let second = EndRecorder()
        let report = try XCTUnwrap(EndReport(observers: [first, second]))
        _ = context(attempt: 1, ending: report)
        let last = context(attempt: 2, ending: report)

        report.end(.failed(LeashError.cancelled), client: client, endpoint: PipelineEndpoint())
        report.end(.completed, client: client, endpoint: PipelineEndpoint())
        report.end(.disposed, client: client, endpoint: PipelineEndpoint())

        XCTAssertEqual(first.summaries, ["failed(\(LeashError.cancelled)) after 2"])
        XCTAssertEqual(second.summaries, first.summaries)
        XCTAssertTrue(first.ends.first?.lastAttempt === last)
        XCTAssertEqual(first.ends.first?.endpoint.path, PipelineEndpoint().path)
    }

    func testAnEndBeforeAnyAttempt_hasNoLastAttempt() throws {
        let recorder = EndRecorder()
        let report = try XCTUnwrap(EndReport(observers: [recorder]))
        report.end(.completed, client: client, endpoint: PipelineEndpoint())
        XCTAssertEqual(recorder.summaries, ["completed after 0"])
        XCTAssertNil(recorder.ends.first?.lastAttempt)
    }

    func testOnceTold_theReportLetsGoOfTheLastAttempt_andLaterAttemptsAreNotKept() throws {
        let counter = OutcomeCounter()
        let report = try XCTUnwrap(EndReport(observers: [counter]))
        weak var weakLast: ExecutionContext?
        weak var weakLater: ExecutionContext?
        do {
            let last = context(attempt: 1, ending: report)
            weakLast = last
            report.end(.disposed, client: client, endpoint: PipelineEndpoint())
            weakLater = context(attempt: 2, ending: report)
        }

        XCTAssertNil(weakLast, "the report holds the last attempt until the end only")
        XCTAssertNil(weakLater)
        XCTAssertEqual(counter.all, ["disposed after 1"])
    }

    func testEndsReportedFromManyThreadsAtOnce_tellEachObserverOnce() throws {
        let counters = [OutcomeCounter(), OutcomeCounter()]
        let reports = try (0..<500).map { _ in try XCTUnwrap(EndReport(observers: counters)) }

        let client = self.client!
        DispatchQueue.concurrentPerform(iterations: reports.count * 3) { index in
            let outcome: ExecutionEnd.Outcome = index % 3 == 0 ? .completed : .failed(LeashError.cancelled)
            reports[index / 3].end(outcome, client: client, endpoint: PipelineEndpoint())
        }

        XCTAssertEqual(counters.map(\.all.count), [reports.count, reports.count], "an end was told twice, or never")
    }

    func testTheOutcomeOfATerminalEvent() {
        guard case .completed = ExecutionEnd.Outcome(terminal: Event<Int>.completed) else {
            return XCTFail("a completion is completed")
        }
        guard case .failed(let error) = ExecutionEnd.Outcome(terminal: Event<Int>.error(LeashError.cancelled)),
            case .cancelled? = error as? LeashError
        else { return XCTFail("an error is a failure with that error") }
    }
}
