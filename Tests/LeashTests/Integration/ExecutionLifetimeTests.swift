import Foundation
import Leash
import LeashTestSupport
import LeashTesting
import Rx
import XCTest

/// Completed executions free everything they held, whichever form ran them; huge and
/// infinite timeouts mean no limit. (Each test once showed a leak or a crash.)
final class ExecutionLifetimeTests: XCTestCase {
    private func makeClient() throws -> Client {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(#"{"id":1}"#))
        return Client(manager: try Manager.Builder().url("http://h").transport(transport).build())
    }

    func testCallbackExecute_completedExecution_freesItsHandleAndSubscription() throws {
        let client = try makeClient()
        let baseline = Resources.total
        weak var weakHandle: DataRequest?
        do {
            let done = expectation(description: "completed")
            let handle = client.execute(SpecEndpoint("/x"), serializer: DataResponseSerializer()) { response in
                XCTAssertTrue(response.isSuccess)
                done.fulfill()
            }
            weakHandle = handle
            wait(for: [done], timeout: 5)
        }
        XCTAssertTrue(
            waitForResources(baseline), "a completed callback execution stays alive: \(Resources.total) vs \(baseline)")
        XCTAssertNil(weakHandle, "the handle of a completed execution stays alive")
    }

    func testAsyncExecute_completedExecution_freesItsSubscription() async throws {
        let client = try makeClient()
        let baseline = Resources.total
        let value = try await client.execute(SpecEndpoint("/x"), serializer: DataResponseSerializer())
        XCTAssertEqual(String(decoding: value, as: UTF8.self), #"{"id":1}"#)
        let freed = await Task.detached { waitForResources(baseline) }.value
        XCTAssertTrue(freed, "a completed async execution stays alive: \(Resources.total) vs \(baseline)")
    }

    func testTimeout_completedCallbackExecution_letsGoOfItsCompletionBeforeTheDeadline() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(#"{"id":1}"#))
        let manager = try Manager.Builder().url("http://h").transport(transport).timeout(60).build()
        let client = Client(manager: manager)
        let baseline = Resources.total
        weak var weakToken: ReleaseToken?
        do {
            let token = ReleaseToken()
            weakToken = token
            let done = expectation(description: "completed")
            client.execute(SpecEndpoint("/x"), serializer: DataResponseSerializer()) { response in
                XCTAssertTrue(response.isSuccess)
                token.touch()
                done.fulfill()
            }
            wait(for: [done], timeout: 5)
        }
        XCTAssertTrue(waitForResources(baseline), "freed before the 60 s deadline: \(Resources.total) vs \(baseline)")
        XCTAssertNil(weakToken, "the completion is still held (by its deadline?)")
    }

    func testTimeout_completedExecution_isFreedBeforeTheDeadline() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(#"{"id":1}"#))
        let manager = try Manager.Builder().url("http://h").transport(transport).timeout(4).build()
        let client = Client(manager: manager)
        let baseline = Resources.total
        let response = try client.specExecute(SpecEndpoint("/x"), serializer: DataResponseSerializer())
            .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
        XCTAssertTrue(waitForResources(baseline), "freed before the 4 s deadline: \(Resources.total) vs \(baseline)")
    }

    func testExecution_infiniteEndpointTimeout_meansNoLimit() throws {
        let response = try makeClient().specExecute(
            SpecEndpoint("/x", timeout: .infinity), serializer: DataResponseSerializer()
        )
        .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
    }

    func testExecution_hugeManagerTimeout_isClampedAndWorks() throws {
        let transport = StubTransport()
        transport.stub(path: "/x", .json(#"{"id":1}"#))
        let manager = try Manager.Builder().url("http://h").transport(transport).timeout(1e300).build()
        let response = try Client(manager: manager).specExecute(
            SpecEndpoint("/x"), serializer: DataResponseSerializer()
        )
        .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
    }

    func testExecutionStream_completedExecution_isFreed() throws {
        let client = try makeClient()
        let baseline = Resources.total
        let response = try client.specExecute(SpecEndpoint("/x"), serializer: DataResponseSerializer())
            .toBlockingResult()
        XCTAssertTrue(response.isSuccess)
        XCTAssertTrue(waitForResources(baseline), "Resources.total \(Resources.total) vs \(baseline)")
    }
}

/// Whether `Resources.total` comes back to `baseline` within `seconds`.
private func waitForResources(_ baseline: Int32, seconds: TimeInterval = 2) -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    while Resources.total != baseline && Date() < deadline {
        RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.005))
    }
    return Resources.total == baseline
}
