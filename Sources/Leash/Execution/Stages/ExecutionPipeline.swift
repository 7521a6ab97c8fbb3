import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The stages of one execution:
///
/// build the request → execution interceptors → transport → success or failure
/// interceptors (then status validation) → completion interceptors → operator
/// interceptors → serialization → serialization interceptors → values.
///
/// Where each stage lives (`Sources/Leash/Execution/`):
/// - `Client.swift` and `Forms/`: how an execution is subscribed (callback, `async`, the
///   streams) and delivered; `Transfer/Client+Transfers.swift` for uploads and downloads.
/// - `Stages/DataStages.swift`: building the request, the transfer it needs
///   (`ExecutionTransfer`: a body from a file, a download's file, progress), validation,
///   retry decisions; `Stages/AttemptRun.swift`: the interceptors and the transport of one
///   attempt, as a state machine; `Stages/TransportObservers.swift`: the transport's answer
///   (or a transfer's events) into it; this file: serialization, retries, the deadline.
/// - `Deadlines/`: timeouts (whole and idle) and the shared timer; `Events/`: what the
///   events form reports; `Concurrency/`: the small tools the stages share.
///
/// Each attempt is a stream of outcomes: the stages up to the completion interceptors are
/// one operator (`AttemptProducer`, a state machine, for speed); operator interceptors,
/// serialization and its interceptors, retries and the deadline are operators composed on
/// it.
///
/// Outcomes travel as `Response<Data>` elements (failures too, so that interceptors can
/// turn them around); progress goes straight to the execution's observer, through the
/// same `SerialObserver` as values, so the observer is never called concurrently.
/// `retry()` anywhere raises `RetrySignal`, which restarts the attempt up to the
/// manager's limit.
///
/// Semantics a caller can rely on:
/// - values come in the order the stages produce them; the stream completes after the
///   last one, or fails with the first failure that no interceptor turned around (a
///   value handed back early stays delivered);
/// - the timeout (the endpoint's, else the manager's) bounds the whole execution, from
///   subscription to its end, whatever holds it up: interceptors, the transport, retries.
///   It fires exactly on time on the manager's scheduler, as `LeashError.timeout`, and
///   cancels whatever was in flight. It is met once the response is complete: the last
///   value settles it before it is handed on (`ExecutionDeadline`), so a slow subscriber
///   never sees the value and then a timeout;
/// - disposing cancels whatever is in flight (the transport's task, a pending timer);
///   interceptors called back later are ignored.
struct ExecutionPipeline<Serializer: ResponseSerializer>: @unchecked Sendable {
    // @unchecked: every stored value is immutable; the endpoint is the app's value, read only.
    typealias Value = Serializer.SerializedObject

    let client: Client
    let endpoint: Endpoint
    let serializer: Serializer
    let interceptors: InterceptorSet
    /// What kind of execution this is: a request, an upload or a download.
    let kind: ExecutionKind
    /// What suspends and resumes the execution (the callback forms' handle), if anything.
    var control: DataRequest?
    /// Changes each attempt's request once it is built (a stream's `Last-Event-ID` and
    /// `Accept`), before the execution interceptors see it.
    var adaptRequest: (@Sendable (inout URLRequest) -> Void)?

    init(client: Client, endpoint: Endpoint, serializer: Serializer, kind: ExecutionKind = .request) {
        self.client = client
        self.endpoint = endpoint
        self.serializer = serializer
        self.interceptors = client.manager.interceptorSet
        self.kind = kind
    }

    /// Timeouts longer than this (about 31 years) are no timeout: the milliseconds would
    /// not fit the timer's interval.
    static var longestTimeout: TimeInterval { 1e9 }

    /// The execution as a stream of events.
    func events() -> Observable<ExecutionEvent<Value>> {
        let pipeline = self
        return Observable<ExecutionEvent<Value>>.create { observer in
            let output = SerialObserver(observer)
            let progress = ProgressSink { progress in
                if let event = ExecutionEvent<Value>(progress: progress) { output.onNext(event) }
            }
            return pipeline.subscribe(output, progress: progress) { stages in
                pipeline.run(attempt: 1, stages: stages).map { response in
                    switch response {
                    case .success(let value, let extra): return .value(value, extra: ResponseExtra.of(extra))
                    case .failure(let error): throw error
                    }
                }
            }
        }
    }

    /// The execution's values only, as successful responses (the stream fails with the
    /// failure that ends the execution): what `Client.responses` returns. The same stages
    /// as `events()`, without reporting progress.
    func values() -> Observable<Response<Value>> {
        valueStream().asObservable()
    }

    /// `values()` as its own observable type, for the forms that subscribe directly (no
    /// adapter around it); `handoff` is where the transport hands its answer, if not on
    /// its own queue (the `async` form's task).
    func valueStream(handoff: ResponseHandoff? = nil) -> ValueStream<Serializer> {
        ValueStream(pipeline: self, handoff: handoff)
    }

    /// The details of a value, as `ResponseExtra.of`, but passing the pipeline's own on
    /// as they are (boxing them again would cost an allocation).
    func details(of extra: Any?) -> Any? {
        if extra is ResponseExtra { return extra }
        return ResponseExtra.of(extra)
    }

    /// The stages of one subscription: made per subscription, since they hold its
    /// deadline.
    func stages(progress: ProgressSink, handoff: ResponseHandoff? = nil, deadline: ExecutionDeadline?) -> DataStages {
        DataStages(
            client: client, endpoint: endpoint, interceptors: interceptors, progress: progress, handoff: handoff,
            deadline: deadline, transfer: transfer(reportsProgress: progress.isReporting, deadline: deadline),
            control: control, adaptRequest: adaptRequest)
    }

    /// The transfer state of one subscription, if it may need the transport's `transfer`:
    /// uploads, downloads, progress reported, an idle limit, or a method that carries a
    /// body (which may come from a file). Plain requests have none and keep the fast path.
    private func transfer(reportsProgress: Bool, deadline: ExecutionDeadline?) -> ExecutionTransfer? {
        let idle = deadline?.limits.idle != nil
        guard needsTransfer(reportsProgress: reportsProgress, idle: idle) else { return nil }
        let download: DownloadPlan?
        if case .download(let plan) = kind { download = plan } else { download = nil }
        // A stream's chunks are its progress (and what keeps its idle limit from firing).
        let reports = !kind.isStream && (reportsProgress || idle)
        return ExecutionTransfer(
            reportsProgress: reports, download: download, streams: kind.isStream, scheduler: client.manager.scheduler)
    }

    /// Whether a subscription needs transfer state (see `transfer(reportsProgress:deadline:)`).
    private func needsTransfer(reportsProgress: Bool, idle: Bool) -> Bool {
        if reportsProgress || idle || endpoint.method.allowsBody { return true }
        if case .request = kind { return false }
        return true
    }

    /// Subscribes `output` to `execution(stages)` with the subscription's own stages and
    /// deadline: the deadline ends it with `LeashError.timeout` (unless it was met first),
    /// the manager's `cancelAll()` with `LeashError.cancelled`, and the files the
    /// execution made are removed at its end, whatever ends it, before the end is reported.
    func subscribe<Element>(
        _ output: SerialObserver<Element>, progress: ProgressSink, handoff: ResponseHandoff? = nil,
        _ execution: (DataStages) -> Observable<Element>
    ) -> Disposable {
        let deadline = makeDeadline()
        let stages = self.stages(progress: progress, handoff: handoff, deadline: deadline)
        let subscription = PipelineSubscription(
            output: output, stages: stages, deadline: deadline, registry: client.manager.executions)
        deadline?.start(subscription)
        subscription.upstream.setDisposable(execution(stages).subscribe { event in subscription.on(event) })
        return subscription
    }

    /// A deadline for one subscription, if the execution has a limit.
    func makeDeadline() -> ExecutionDeadline? {
        let limits = self.limits
        return limits.isEmpty ? nil : ExecutionDeadline(limits: limits, manager: client.manager)
    }

    /// The execution's time limits: the whole-execution timeout (the endpoint's, else the
    /// manager's) and the idle timeout (likewise).
    ///
    /// Uploads, downloads and streams are meant to last as long as their bytes keep
    /// moving: the manager's `timeout` bounds each stall of theirs (as an idle limit, unless an idle
    /// timeout is set), not the whole transfer; an endpoint's own `timeout` still bounds
    /// the whole of it.
    var limits: ExecutionDeadline.Limits {
        let manager = client.manager
        let idle = Self.limit(endpoint.idleTimeout ?? manager.idleTimeout)
        guard kind.isTransfer else { return ExecutionDeadline.Limits(whole: timeout, idle: idle) }
        return ExecutionDeadline.Limits(whole: Self.limit(endpoint.timeout), idle: idle ?? Self.limit(manager.timeout))
    }

    /// The execution's time limit in seconds (the endpoint's, else the manager's), if it
    /// has one.
    var timeout: TimeInterval? {
        Self.limit(endpoint.timeout ?? client.manager.timeout)
    }

    /// `seconds` as a limit: none unless positive, finite and below `longestTimeout`.
    private static func limit(_ seconds: TimeInterval?) -> TimeInterval? {
        guard let seconds, seconds.isFinite, seconds > 0, seconds < longestTimeout else { return nil }
        return seconds
    }

    /// One attempt and, on `RetrySignal`, the next ones.
    ///
    /// Without serialization interceptors nothing after the completion stage can retry, so
    /// the retries are handled on `Response<Data>` (not generic, cheaper) and serialization
    /// is one `map`; otherwise a retry from the serialization stage restarts the whole
    /// attempt here.
    func run(attempt: Int, stages: DataStages) -> Observable<Response<Value>> {
        let pipeline = self
        if interceptors.serialization.isEmpty {
            return stages.outcomesWithRetries(from: attempt).map { response in
                Response(result: pipeline.serialize(response), extra: response.extra)
            }
        }
        let attemptStream = stages.admitted(
            attempt,
            Observable.deferred {
                let (outcomes, context) = stages.attempt(attempt)
                return pipeline.serializationStage(outcomes, context: context)
            })
        return attemptStream.catch { error in
            do {
                try stages.prepareRetry(after: error, attempt: attempt)
            } catch {
                return .error(error)
            }
            return pipeline.run(attempt: attempt + 1, stages: stages)
        }
    }

    /// Serializes each outcome and runs the serialization interceptors on it. Without
    /// serialization interceptors this is a plain `map`.
    private func serializationStage(_ outcomes: Observable<Response<Data>>, context: ExecutionContext)
        -> Observable<Response<Value>>
    {
        let pipeline = self
        guard !interceptors.serialization.isEmpty else {
            return outcomes.map { response in Response(result: pipeline.serialize(response), extra: response.extra) }
        }
        return outcomes.concatMap { response -> Observable<Response<Value>> in
            // The serialized value is handed from stage to stage, never shared: carried
            // across the `@Sendable` stage closures unchecked (values need not be Sendable).
            let result = Carried(pipeline.serialize(response))
            let serialized = Carried(Response(result: result.value, extra: response.extra))
            let cause: Swift.Error?
            if case .failure(let error) = result.value { cause = error } else { cause = nil }
            return interceptorStage(pipeline.interceptors.serialization, context: context, cause: cause) {
                (interceptor: SerializationInterceptor, chain: InterceptorChain<Value>) in
                interceptor.intercept(
                    chain: chain, response: response, result: result.value, serializer: pipeline.serializer)
            }
            .concatMap { outcome -> Observable<Response<Value>> in
                switch outcome {
                case .proceed: return .just(serialized.value)
                case .interim(let result), .complete(let result): return .just(result.fromInterceptor())
                case .retry: return .error(RetrySignal(lastError: cause))
                }
            }
        }
    }

    func serialize(_ response: Response<Data>) -> Result<Value, Swift.Error> {
        switch response {
        case .failure(let error): return .failure(error)
        case .success(let data, let extra): return Result { try serializedValue(of: data, extra: extra) }
        }
    }

    /// The value `data` serializes to; throws the serializer's `LeashError`, or any other
    /// error it throws as `LeashError.serialization`. (Throwing, not a `Result`: the
    /// forms that call this per response run it unspecialised, where every generic type
    /// such as `Result<Value, Error>` costs a metadata look-up.)
    func serializedValue(of data: Data, extra: Any?) throws -> Value {
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
