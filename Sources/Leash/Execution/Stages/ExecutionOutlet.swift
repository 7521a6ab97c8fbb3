import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The typed end of an execution, as the (untyped) execution sees it.
protocol ExecutionOutput: AnyObject, Sendable {
    /// Progress, for the forms that report it.
    func progress(_ progress: ExecutionProgress)
    /// Serializes attempt `number`'s outcome, runs the serialization interceptors on it and
    /// hands the value on; then tells `execution` (`serialized(attempt:)`), or ends it
    /// (a failure) or retries it.
    func serialize(_ response: Response<Data>, context: ExecutionContext, attempt number: Int, execution: Execution)
    /// The execution ended (`nil`: completed): the last thing the form hears.
    func end(_ error: Swift.Error?)
    /// The subscriber let go: the form hears nothing more.
    func release()
}

/// What a form (Rx values, events, callbacks, `async`, transfers, streams) does with an
/// execution: a thin sink that the execution's outlet calls one item at a time, never
/// concurrently, and never after `end`.
protocol ExecutionSink: Sendable {
    /// The value type the form delivers.
    associatedtype Value
    /// Whether the form reports progress: the execution builds progress only for those
    /// that do.
    var reportsProgress: Bool { get }
    /// Progress of the execution (only if `reportsProgress`).
    func progress(_ progress: ExecutionProgress)
    /// A serialized value and its details.
    func value(_ value: Value, extra: ResponseExtra)
    /// The end: completed (`nil`) or failed.
    func end(_ error: Swift.Error?)
}

extension ExecutionSink {
    var reportsProgress: Bool { false }
    func progress(_ progress: ExecutionProgress) {}
}

/// The last stage of every execution, typed: serializes each outcome with the form's
/// serializer, runs the serialization interceptors, and hands values, progress and the
/// end to the form's sink through one `DeliveryLine` (so the sink is called one item at a
/// time, from whatever threads the items come, and nothing after the end).
final class ExecutionOutlet<Serializer: ResponseSerializer, Sink: ExecutionSink>: ExecutionOutput,
    @unchecked Sendable
where Sink.Value == Serializer.SerializedObject {
    // @unchecked: `sink` is touched only by the thread holding the line's delivering role
    // (see `DeliveryLine`); the rest is immutable.
    //
    // The line is not generic (a value waiting in it is boxed): code here runs
    // unspecialised, and a lock over a generic state would look up that state's metadata on
    // every delivery.
    typealias Value = Serializer.SerializedObject

    let serializer: Serializer
    private let interceptors: [SerializationInterceptor]
    private let line = LockedState(DeliveryLine<PendingItem>())
    /// Let go once the line closed and its last item was delivered.
    private var sink: Sink?

    init(serializer: Serializer, sink: Sink, interceptors: InterceptorSet) {
        self.serializer = serializer
        self.interceptors = interceptors.serialization
        self.sink = sink
    }

    func progress(_ progress: ExecutionProgress) {
        deliver(.progress(progress)) { $0.progress(progress) }
    }

    func end(_ error: Swift.Error?) {
        deliver(.end(error), closing: true) { $0.end(error) }
    }

    func release() {
        line.close(release: releaseSink)
    }

    /// Hands `value` to the sink (in place unless another item is being delivered).
    private func deliver(_ value: Value, _ extra: ResponseExtra) {
        deliver(.value(value, extra)) { $0.value(value, extra: extra) }
    }

    /// Delivers an item: in place with `now` if nobody else is delivering, else queued (as
    /// `item`, made only then) for the thread that is. Only the deliverer touches `sink`.
    private func deliver(_ item: @autoclosure () -> PendingItem, closing: Bool = false, now: (Sink) -> Void) {
        guard line.enter(closing: closing, orQueue: item()) else { return }
        if let sink { now(sink) }
        line.drain(hand: handPending, release: releaseSink)
    }

    private func handPending(_ item: PendingItem) {
        if let sink { item.hand(to: sink) }
    }

    private func releaseSink() {
        let released = sink
        sink = nil
        withExtendedLifetime(released) {}
    }

    // MARK: Serialization

    func serialize(_ response: Response<Data>, context: ExecutionContext, attempt number: Int, execution: Execution) {
        guard !interceptors.isEmpty else {
            // The common case: nothing after serialization can call back later or retry.
            switch response {
            case .failure(let error):
                execution.finish(error)
            case .success(let data, let extra):
                let value: Value
                do {
                    value = try serializedValue(of: data, extra: extra)
                } catch {
                    return execution.finish(error)
                }
                deliver(value, ResponseExtra.of(extra))
                execution.serialized(attempt: number)
            }
            return
        }
        serializeThroughInterceptors(response, context: context, attempt: number, execution: execution)
    }

    /// `serialize` with serialization interceptors: kept apart, so that the common case
    /// never touches the generic types this needs (each a metadata look-up at run time).
    private func serializeThroughInterceptors(
        _ response: Response<Data>, context: ExecutionContext, attempt number: Int, execution: Execution
    ) {
        let result: Result<Value, Swift.Error>
        switch response {
        case .failure(let error): result = .failure(error)
        case .success(let data, let extra): result = Result { try serializedValue(of: data, extra: extra) }
        }
        let run = SerializationRun(outlet: self, execution: execution, attempt: number)
        let serializer = self.serializer
        let stage = SerializationRun<Serializer, Sink>.Stage(response: response, result: result)
        InterceptorLoop(interceptors: interceptors, host: run, stage: stage, cause: result.failure) {
            $0.intercept(chain: $1, response: response, result: result, serializer: serializer)
        }
        .run(context: context)
    }

    /// The outcome of the serialization interceptors (or the serialized value itself,
    /// when they all proceeded): a value is handed on, and the execution goes on (unless
    /// it was `interim`, which the run follows with its own outcome); a failure ends it.
    func finished(_ response: Response<Value>, interim: Bool, attempt number: Int, execution: Execution) {
        switch response {
        case .success(let value, let extra):
            deliver(value, ResponseExtra.of(extra))
            if !interim { execution.serialized(attempt: number) }
        case .failure(let error):
            execution.finish(error)
        }
    }

    /// The value `data` serializes to; throws the serializer's `LeashError`, or any other
    /// error it throws as `LeashError.serialization`.
    private func serializedValue(of data: Data, extra: Any?) throws -> Value {
        let details = extra as? ResponseExtra
        do {
            if let file = details?.bodyFile {
                return try serializer.serialize(request: details?.request, response: details?.httpResponse, file: file)
            }
            return try serializer.serialize(
                request: details?.request, response: details?.httpResponse, data: data, error: nil)
        } catch let error as LeashError {
            throw error
        } catch {
            throw LeashError.serialization(reason: "\(type(of: serializer)) failed", underlying: error)
        }
    }
}

/// One outcome through the serialization interceptors (made only when the manager has
/// some): their results go back to the outlet, while the attempt is still current.
final class SerializationRun<Serializer: ResponseSerializer, Sink: ExecutionSink>: StageHost, @unchecked Sendable
where Sink.Value == Serializer.SerializedObject {
    // @unchecked: immutable.
    typealias Output = Serializer.SerializedObject

    /// The outcome being serialized, and what it serialized to.
    struct Stage {
        let response: Response<Data>
        let result: Result<Serializer.SerializedObject, Swift.Error>
    }

    let outlet: ExecutionOutlet<Serializer, Sink>
    let execution: Execution
    let attempt: Int

    init(outlet: ExecutionOutlet<Serializer, Sink>, execution: Execution, attempt: Int) {
        self.outlet = outlet
        self.execution = execution
        self.attempt = attempt
    }

    var isLive: Bool { execution.isCurrent(attempt) }

    func stage(_ stage: Stage, reported result: StageResult<Output>) {
        switch result {
        case .proceed:
            let serialized = Response(result: stage.result, extra: stage.response.extra)
            outlet.finished(serialized, interim: false, attempt: attempt, execution: execution)
        case .interim(let response):
            outlet.finished(response.fromInterceptor(), interim: true, attempt: attempt, execution: execution)
        case .complete(let response):
            outlet.finished(response.fromInterceptor(), interim: false, attempt: attempt, execution: execution)
        case .retry:
            execution.retry(RetrySignal(lastError: stage.result.failure), from: attempt)
        }
    }
}

extension Result {
    /// The failure, if this is one.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// An item waiting in an outlet's line, untyped (see `ExecutionOutlet`).
enum PendingItem: @unchecked Sendable {
    // @unchecked: handed from the thread that queued it to the one delivering.
    case progress(ExecutionProgress)
    case value(Any, ResponseExtra)
    case end(Swift.Error?)

    /// Hands the item to `sink`.
    func hand<Sink: ExecutionSink>(to sink: Sink) {
        switch self {
        case .progress(let progress): sink.progress(progress)
        case .value(let value, let extra): if let value = value as? Sink.Value { sink.value(value, extra: extra) }
        case .end(let error): sink.end(error)
        }
    }
}
