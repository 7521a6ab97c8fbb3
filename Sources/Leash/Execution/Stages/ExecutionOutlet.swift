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
    // @unchecked: the sink is behind the line's lock; the rest is immutable.
    typealias Value = Serializer.SerializedObject

    /// What goes to the sink.
    enum Item {
        case progress(ExecutionProgress)
        case value(Value, ResponseExtra)
        case end(Swift.Error?)
    }

    let serializer: Serializer
    private let interceptors: [SerializationInterceptor]
    private let line: LockedState<DeliveryLine<Item, Sink>>

    init(serializer: Serializer, sink: Sink, interceptors: InterceptorSet) {
        self.serializer = serializer
        self.interceptors = interceptors.serialization
        self.line = LockedState(DeliveryLine(sink))
    }

    func progress(_ progress: ExecutionProgress) {
        line.deliver(.progress(progress), to: Self.hand)
    }

    func end(_ error: Swift.Error?) {
        line.deliver(.end(error), closing: true, to: Self.hand)
    }

    func release() {
        line.closeLine()
    }

    private static func hand(_ sink: Sink, _ item: Item) {
        switch item {
        case .progress(let progress): sink.progress(progress)
        case .value(let value, let extra): sink.value(value, extra: extra)
        case .end(let error): sink.end(error)
        }
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
                line.deliver(.value(value, ResponseExtra.of(extra)), to: Self.hand)
                execution.serialized(attempt: number)
            }
            return
        }
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
            line.deliver(.value(value, ResponseExtra.of(extra)), to: Self.hand)
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
