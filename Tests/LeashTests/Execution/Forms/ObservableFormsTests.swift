import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ObservableForms`, an execution as an observable: each subscription starts an execution
/// of its own and disposing it cancels that one; the values form emits the bare values, the
/// responses form each value with its details, the events form progress then values; each
/// completes after the last value or fails with the failure that ended the execution.
final class ObservableFormsTests: PipelineTestCase {
    private var transport: HeldTransport!
    private var recipe: ExecutionRecipe!

    override func setUpWithError() throws {
        try super.setUpWithError()
        transport = HeldTransport()
        recipe = ExecutionRecipe(client: try makePipelineClient(transport), endpoint: PipelineEndpoint())
    }

    override func tearDown() {
        transport = nil
        recipe = nil
        super.tearDown()
    }

    /// Subscribes to `observable`, recording its elements named by `name`, and its end.
    private func record<Source: ObservableType>(
        _ observable: Source, _ log: PipelineLog, name: @escaping (Source.Element) -> String
    ) -> Disposable {
        observable.asObservable().subscribe(
            onNext: { log.append(name($0)) }, onError: { log.append("error \(executionErrorName($0))") },
            onCompleted: { log.append("completed") })
    }

    func testValues_emitsTheBareValues_thenCompletes() {
        let log = PipelineLog()
        _ = record(ObservableForms.Values(recipe: recipe, serializer: StringResponseSerializer()), log) { $0 }

        transport.requests[0].answer(200, "a")

        XCTAssertEqual(log.all, ["a", "completed"])
    }

    func testResponses_emitEachValueWithItsDetails() {
        let log = PipelineLog()
        _ = record(ObservableForms.Responses(recipe: recipe, serializer: StringResponseSerializer()), log) {
            "\($0.value ?? "-") \($0.source.map { "\($0)" } ?? "-") \($0.statusCode ?? 0)"
        }

        transport.requests[0].answer(201, "a")

        XCTAssertEqual(log.all, ["a network 201", "completed"])
    }

    func testEvents_emitTheProgressThenTheValue() {
        let log = PipelineLog()
        _ = record(ObservableForms.Events(recipe: recipe, serializer: StringResponseSerializer()), log) {
            pipelineName($0)
        }

        transport.requests[0].answer(200, "a")

        XCTAssertEqual(Array(log.all.prefix(2)), ["requestPrepared(1)", "requestSent(1)"])
        XCTAssertEqual(Array(log.all.suffix(3)), ["responseReceived(200, 1)", "value(a, network)", "completed"])
    }

    func testAFailure_endsTheStreamWithIt() {
        let log = PipelineLog()
        _ = record(ObservableForms.Values(recipe: recipe, serializer: StringResponseSerializer()), log) { $0 }

        transport.requests[0].answer(500)

        XCTAssertEqual(log.all, ["error status(500)"])
    }

    func testEachSubscription_startsItsOwnExecution_andDisposingCancelsThatOne() {
        let log = PipelineLog()
        let values = ObservableForms.Values(recipe: recipe, serializer: StringResponseSerializer())
        XCTAssertTrue(transport.requests.isEmpty, "cold: nothing runs before a subscription")

        let first = record(values, log) { "first \($0)" }
        _ = record(values, log) { "second \($0)" }
        XCTAssertEqual(transport.requests.count, 2)
        first.dispose()
        XCTAssertEqual(transport.requests.map(\.disposeCount), [1, 0], "only the first one's request is cancelled")
        transport.requests[1].answer(200, "b")

        XCTAssertEqual(log.all, ["second b", "completed"], "the disposed one hears nothing")
        XCTAssertEqual(recipe.manager.executions.count, 0)
    }
}
