import Foundation
import LeashTestSupport
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ExecutionRecipe`, what to execute and how: its time limits (a request's timeout bounds
/// the whole execution, a transfer's or a stream's bounds each stall unless the endpoint
/// sets its own; a limit that is not a positive, finite number of seconds below 10⁹ is no
/// limit), and the transfer state it makes only for executions that may need it.
final class ExecutionRecipeTests: XCTestCase {
    private func recipe(
        _ kind: ExecutionKind = .request, endpoint: PipelineEndpoint = PipelineEndpoint(),
        configure: (Manager.Builder) -> Void = { _ in }
    ) throws -> ExecutionRecipe {
        ExecutionRecipe(
            client: try makePipelineClient(HeldTransport(), configure: configure), endpoint: endpoint, kind: kind)
    }

    func testARequestsTimeout_boundsTheWholeExecution_theEndpointsFirst() throws {
        XCTAssertEqual(try recipe { $0.timeout(10) }.limits, .init(whole: 10, idle: nil))
        XCTAssertEqual(try recipe(endpoint: PipelineEndpoint(timeout: 5)) { $0.timeout(10) }.limits, .init(whole: 5))
        XCTAssertEqual(
            try recipe(endpoint: PipelineEndpoint(idleTimeout: 2)) { $0.idleTimeout(7) }.limits, .init(idle: 2))
        XCTAssertEqual(try recipe { $0.idleTimeout(7) }.limits, .init(idle: 7))
        XCTAssertNil(try recipe().makeDeadline(), "no limit, no deadline")
    }

    func testATransfersManagerTimeout_boundsEachStall_andItsEndpointTimeoutTheWhole() throws {
        for kind in [ExecutionKind.upload, .stream] {
            XCTAssertEqual(try recipe(kind) { $0.timeout(10) }.limits, .init(whole: nil, idle: 10))
            XCTAssertEqual(
                try recipe(kind, endpoint: PipelineEndpoint(timeout: 30)) { $0.timeout(10) }.limits,
                .init(whole: 30, idle: 10))
            XCTAssertEqual(
                try recipe(kind) { $0.timeout(10).idleTimeout(3) }.limits, .init(whole: nil, idle: 3),
                "an idle timeout wins over the manager's timeout")
        }
    }

    func testALimitThatIsNotAPositiveFiniteTimeBelow1e9_isNoLimit() throws {
        for seconds in [0, -1, .infinity, .nan, 2e9] as [TimeInterval] {
            let limits = try recipe(endpoint: PipelineEndpoint(timeout: seconds, idleTimeout: seconds)).limits
            XCTAssertTrue(limits.isEmpty, "\(seconds)")
        }
        XCTAssertEqual(try recipe(endpoint: PipelineEndpoint(timeout: 999_999_999)).limits.whole, 999_999_999)
    }

    func testTransferState_isMadeOnlyForExecutionsThatMayNeedIt() throws {
        XCTAssertNil(
            try recipe().makeTransfer(reportsProgress: false, deadline: nil), "a plain GET keeps the fast path")
        XCTAssertNotNil(try recipe().makeTransfer(reportsProgress: true, deadline: nil), "progress is reported")
        XCTAssertNotNil(
            try recipe(endpoint: PipelineEndpoint(method: .post)).makeTransfer(reportsProgress: false, deadline: nil),
            "a body may come from a file")
        let idle = try recipe { $0.idleTimeout(3) }
        XCTAssertNotNil(idle.makeTransfer(reportsProgress: false, deadline: idle.makeDeadline()), "bytes are watched")
        XCTAssertNotNil(try recipe(.upload).makeTransfer(reportsProgress: false, deadline: nil))
    }

    func testARedirectPolicyAndAcceptableCodes_areTheEndpointsElseTheManagers() throws {
        let managers = try recipe { $0.acceptableStatusCodes([200]).redirects(.doNotFollow) }
        XCTAssertEqual(managers.acceptableStatusCodes, [200])
        XCTAssertEqual(managers.redirectPolicy.limit, RedirectPolicy.doNotFollow.limit)
        let endpoints = try recipe(endpoint: PipelineEndpoint(acceptableStatusCodes: [204])) {
            $0.acceptableStatusCodes([200])
        }
        XCTAssertEqual(endpoints.acceptableStatusCodes, [204])
    }
}
