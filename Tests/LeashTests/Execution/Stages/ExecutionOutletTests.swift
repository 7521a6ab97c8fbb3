import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ExecutionOutlet`, the typed end of an execution: serializes each outcome and hands the
/// value on (a serializer's own error as `LeashError.serialization`, a failure ending the
/// execution), runs the serialization interceptors, and calls the form's sink one item at a
/// time from whatever threads the items come, nothing after the end nor after `release()`,
/// which lets go of the sink.
final class ExecutionOutletTests: PipelineTestCase {
    /// A serializer that throws `error`.
    private struct Throwing: ResponseSerializer {
        let error: Swift.Error
        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: Swift.Error?) throws
            -> Data
        {
            throw self.error
        }
    }

    /// Replaces every serialized body with `replacement`.
    private struct Replacing: SerializationInterceptor {
        let replacement: String
        func intercept<Serializer: ResponseSerializer>(
            chain: InterceptorChain<Serializer.SerializedObject>, response: Response<Data>,
            result: Result<Serializer.SerializedObject, Swift.Error>, serializer: Serializer
        ) {
            guard let data = Data(replacement.utf8) as? Serializer.SerializedObject else { return chain.proceed() }
            chain.complete(with: data)
        }
    }

    private func outlet<Serializer: ResponseSerializer>(
        _ client: Client, _ sink: RecordingSink, serializer: Serializer
    ) -> (ExecutionOutlet<Serializer, RecordingSink>, Execution) where Serializer.SerializedObject == Data {
        let outlet = ExecutionOutlet(serializer: serializer, sink: sink, interceptors: client.manager.interceptorSet)
        let recipe = ExecutionRecipe(client: client, endpoint: PipelineEndpoint())
        return (outlet, Execution(recipe: recipe, outlet: outlet, reportsProgress: sink.reportsProgress))
    }

    private func context(_ client: Client) -> ExecutionContext {
        ExecutionContext(
            client: client, endpoint: PipelineEndpoint(), request: DataRequest(URLRequest(url: executionTestURL)),
            attempt: 1)
    }

    private func body(_ text: String) -> Response<Data> {
        .success(value: Data(text.utf8), extra: ResponseExtra(source: .network))
    }

    func testAValue_isSerializedAndHandedOn() throws {
        let client = try makePipelineClient(HeldTransport())
        let sink = RecordingSink(record: SinkRecord())
        let (outlet, execution) = outlet(client, sink, serializer: DataResponseSerializer())

        outlet.serialize(body("a"), context: context(client), attempt: 1, execution: execution)

        XCTAssertEqual(sink.record.all, ["value a"])
    }

    func testASerializersOwnError_endsTheExecutionAsASerializationError_aLeashErrorAsItIs() throws {
        let client = try makePipelineClient(HeldTransport())
        let foreign = RecordingSink(record: SinkRecord())
        let (throwingForeign, first) = outlet(
            client, foreign, serializer: Throwing(error: PipelineAppError.unauthorized))
        throwingForeign.serialize(body("a"), context: context(client), attempt: 1, execution: first)

        let leash = RecordingSink(record: SinkRecord())
        let (throwingLeash, second) = outlet(client, leash, serializer: Throwing(error: LeashError.cancelled))
        throwingLeash.serialize(body("a"), context: context(client), attempt: 1, execution: second)

        XCTAssertEqual(foreign.record.all, ["end serialization"])
        XCTAssertEqual(leash.record.all, ["end cancelled"])
        XCTAssertFalse(first.isLive)
    }

    func testAFailure_endsTheExecutionWithIt() throws {
        let client = try makePipelineClient(HeldTransport())
        let sink = RecordingSink(record: SinkRecord())
        let (outlet, execution) = outlet(client, sink, serializer: DataResponseSerializer())

        outlet.serialize(
            .failure(LeashError.timeout(seconds: 4)), context: context(client), attempt: 1, execution: execution)

        XCTAssertEqual(sink.record.all, ["end timeout(4.0)"])
    }

    func testNothingIsHandedOnAfterTheEnd() throws {
        let client = try makePipelineClient(HeldTransport())
        let sink = RecordingSink(record: SinkRecord(), reportsProgress: true)
        let (outlet, execution) = outlet(client, sink, serializer: DataResponseSerializer())

        outlet.progress(.retrying(attempt: 2))
        outlet.end(nil)
        outlet.progress(.retrying(attempt: 3))
        outlet.serialize(body("late"), context: context(client), attempt: 1, execution: execution)
        outlet.end(LeashError.cancelled)

        XCTAssertEqual(sink.record.all, ["retrying(2)", "end nil"])
    }

    func testRelease_letsGoOfTheSink_andNothingMoreIsHandedOn() throws {
        let client = try makePipelineClient(HeldTransport())
        let calls = SpecLocked(0)
        weak var weakRecord: SinkRecord?
        let outlet: ExecutionOutlet<DataResponseSerializer, RecordingSink>
        do {
            let record = SinkRecord()
            weakRecord = record
            let sink = RecordingSink(record: record, reportsProgress: true) { calls.withLock { $0 += 1 } }
            outlet = ExecutionOutlet(
                serializer: DataResponseSerializer(), sink: sink, interceptors: client.manager.interceptorSet)
        }

        outlet.release()
        outlet.progress(.retrying(attempt: 2))
        outlet.end(nil)

        XCTAssertNil(weakRecord, "the subscriber let go: the outlet must not keep it")
        XCTAssertEqual(calls.value, 0)
    }

    func testItemsFromManyThreads_reachTheSinkOneAtATime_andTheEndIsTheLast() throws {
        let client = try makePipelineClient(HeldTransport())
        let sink = RecordingSink(record: SinkRecord(), reportsProgress: true)
        let (outlet, _) = outlet(client, sink, serializer: DataResponseSerializer())
        let count = 4_000

        DispatchQueue.concurrentPerform(iterations: count) { index in
            if index == count / 2 {
                outlet.end(nil)
            } else {
                outlet.progress(.retrying(attempt: index))
            }
        }

        let items = sink.record.all
        XCTAssertEqual(sink.record.overlapCount, 0, "the sink was called by two threads at once")
        XCTAssertEqual(sink.record.ends, ["end nil"])
        XCTAssertEqual(items.last, "end nil", "an item came after the end")
        XCTAssertEqual(Set(items).count, items.count, "an item came twice")
    }

    func testSerializationInterceptors_mayReplaceTheValue() throws {
        let transport = HeldTransport()
        let client = try makePipelineClient(transport) { $0.add(interceptor: Replacing(replacement: "replaced")) }
        let sink = RecordingSink(record: SinkRecord())
        let (_, execution) = outlet(client, sink, serializer: DataResponseSerializer())
        execution.start()

        transport.requests[0].answer(200, "raw")

        XCTAssertEqual(sink.record.all, ["value replaced", "end nil"])
    }
}
