import Dispatch
import Foundation
import LeashTestSupport
import Rx
import XCTest

@testable import Leash

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Shared helpers of the tests of the execution's own types (`Tests/LeashTests/Execution/`),
// which reach those types directly (`@testable import Leash`). Names that are not the
// pipeline tests' own start with `Execution` or say what they record.

/// The request of `PipelineEndpoint()` on a `makePipelineClient` client.
let executionTestURL = URL(string: "https://api.example.com/v1/users/1")!

/// An HTTP response to `executionTestURL` with `status`.
func executionTestResponse(_ status: Int = 200, headers: [String: String] = [:]) -> HTTPURLResponse {
    HTTPURLResponse(url: executionTestURL, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
}

/// A short, comparable name for an execution's progress.
func executionProgressName(_ progress: ExecutionProgress) -> String {
    switch progress {
    case .requestPrepared(_, let attempt): return "requestPrepared(\(attempt))"
    case .requestSent(_, let attempt): return "requestSent(\(attempt))"
    case .responseReceived(let response, _, let attempt): return "responseReceived(\(response.statusCode), \(attempt))"
    case .retrying(let attempt): return "retrying(\(attempt))"
    case .uploadProgress(let progress): return "uploadProgress(\(progress.completedBytes))"
    case .downloadProgress(let progress): return "downloadProgress(\(progress.completedBytes))"
    case .streamOpened(let head): return "streamOpened(\(head.statusCode))"
    case .bodyChunk(let chunk): return "bodyChunk(\(String(decoding: chunk, as: UTF8.self)))"
    }
}

/// A short, comparable name for an error: `LeashError`s by their case, others described.
func executionErrorName(_ error: Swift.Error?) -> String {
    guard let error else { return "nil" }
    switch error as? LeashError {
    case .cancelled?: return "cancelled"
    case .timeout(let seconds)?: return "timeout(\(seconds))"
    case .retryLimitExceeded(let attempts, let lastError)?:
        return "retryLimitExceeded(\(attempts), \(executionErrorName(lastError)))"
    case .invalidResponse?: return "invalidResponse"
    case .unacceptableStatusCode(let failure)?: return "status(\(failure.statusCode))"
    case .serialization?: return "serialization"
    case .encoding?: return "encoding"
    case .tooManyRedirects(let limit, _)?: return "tooManyRedirects(\(limit))"
    case .transport(let urlError)?: return "transport(\(urlError.code.rawValue))"
    default: return "\(error)"
    }
}

// MARK: What the execution hands on

/// What a form's sink was handed, in order, and whether it was ever entered by two threads
/// at once.
final class SinkRecord: @unchecked Sendable {
    // @unchecked: everything is behind the locks.
    private let items = SpecLocked<[String]>([])
    private let inside = SpecLocked(0)
    private let overlaps = SpecLocked(0)

    /// Records `item`, noting an overlap if another thread is recording too.
    func record(_ item: String) {
        let concurrent = inside.withLock { count -> Bool in
            count += 1
            return count > 1
        }
        if concurrent { overlaps.withLock { $0 += 1 } }
        items.withLock { $0.append(item) }
        inside.withLock { $0 -= 1 }
    }

    var all: [String] { items.value }
    var ends: [String] { all.filter { $0.hasPrefix("end") } }
    var values: [String] { all.filter { $0.hasPrefix("value") } }
    var overlapCount: Int { overlaps.value }
}

/// A form's sink for raw bodies that records what it is handed (`value <body>`,
/// progress by name, `end <error>`).
struct RecordingSink: ExecutionSink {
    typealias Value = Data

    let record: SinkRecord
    var reportsProgress = false
    /// Run inside each call, before it returns (a slow subscriber).
    var onCall: (@Sendable () -> Void)?

    func progress(_ progress: ExecutionProgress) {
        onCall?()
        record.record(executionProgressName(progress))
    }

    func value(_ value: Data, extra: ResponseExtra) {
        onCall?()
        record.record("value \(String(decoding: value, as: UTF8.self))")
    }

    func end(_ error: Swift.Error?) {
        onCall?()
        record.record("end \(executionErrorName(error))")
    }
}

/// An execution of `endpoint` on `client` that hands raw bodies to `sink`, made but not
/// started (`start()` starts it).
func makeExecution(
    _ client: Client, endpoint: Endpoint = PipelineEndpoint(), sink: RecordingSink, control: DataRequest? = nil
) -> Execution {
    var recipe = ExecutionRecipe(client: client, endpoint: endpoint)
    recipe.control = control
    let outlet = ExecutionOutlet(
        serializer: DataResponseSerializer(), sink: sink, interceptors: client.manager.interceptorSet)
    return Execution(recipe: recipe, outlet: outlet, reportsProgress: sink.reportsProgress)
}

/// Attempt `number` of an execution of `PipelineEndpoint()` on `client`, made but not
/// begun, handing its outcomes to the returned output. The execution is not started, but
/// listed in its manager's registry, so that a value can settle it (see `Attempt.deliver`).
func makeAttempt(_ client: Client, number: Int = 1) -> (Attempt, RecordingAttemptOutput) {
    let execution = makeExecution(client, sink: RecordingSink(record: SinkRecord()))
    client.manager.executions.add(execution)
    let context = ExecutionContext(
        client: client, endpoint: PipelineEndpoint(), request: DataRequest(URLRequest(url: executionTestURL)),
        attempt: number)
    let output = RecordingAttemptOutput()
    return (Attempt(execution: execution, number: number, context: context, output: output), output)
}

/// Where an `Attempt` made by a test hands its outcomes: recorded as `success <body>` or
/// `failure <error>`, then `finished`.
final class RecordingAttemptOutput: AttemptOutput, @unchecked Sendable {
    // @unchecked: the record is thread-safe.
    let record = SinkRecord()

    func attempt(_ number: Int, produced response: Response<Data>, context: ExecutionContext) {
        switch response {
        case .success(let data, _): record.record("success \(String(decoding: data, as: UTF8.self))")
        case .failure(let error): record.record("failure \(executionErrorName(error))")
        }
    }

    func attemptFinished(_ number: Int) {
        record.record("finished")
    }
}

// MARK: A transport the test answers

/// A transport whose requests wait until the test answers them, and which says how often
/// each was disposed.
final class HeldTransport: Transport, @unchecked Sendable {
    // @unchecked: the list is locked.
    private let held = SpecLocked<[HeldRequest]>([])

    func send(_ request: URLRequest) -> Observable<TransportResponse> {
        let carried = Carried(request)
        return Observable.create { [held] observer in
            let request = HeldRequest(carried.value, observer)
            held.withLock { $0.append(request) }
            return Disposables.create { request.disposed() }
        }
    }

    /// The requests sent so far, in order.
    var requests: [HeldRequest] { held.value }
}

/// A request waiting in a `HeldTransport`. It lets go of its observer once answered or
/// disposed: the observer holds the execution, which holds the transport, which holds this.
final class HeldRequest: @unchecked Sendable {
    // @unchecked: `request` is immutable; the rest is locked.
    let request: URLRequest
    private let observer: SpecLocked<AnyObserver<TransportResponse>?>
    private let disposals = SpecLocked(0)

    init(_ request: URLRequest, _ observer: AnyObserver<TransportResponse>) {
        self.request = request
        self.observer = SpecLocked(observer)
    }

    fileprivate func disposed() {
        disposals.withLock { $0 += 1 }
        _ = takeObserver()
    }

    private func takeObserver() -> AnyObserver<TransportResponse>? {
        observer.withLock { observer in
            defer { observer = nil }
            return observer
        }
    }

    /// How often the request's subscription was disposed.
    var disposeCount: Int { disposals.value }

    /// Answers with `status`, `body` and `headers` (nothing, once disposed).
    func answer(_ status: Int = 200, _ body: String = "", headers: [String: String] = [:]) {
        guard let observer = takeObserver() else { return }
        let response = executionTestResponse(status, headers: headers)
        observer.onNext(TransportResponse(httpResponse: response, data: Data(body.utf8)))
        observer.onCompleted()
    }

    /// Completes without a response (nothing, once disposed).
    func completeWithoutAnswer() {
        takeObserver()?.onCompleted()
    }
}

/// A disposable that counts every `dispose()` (Rx's own disposables ignore all but the
/// first, which would hide a second one).
final class CountingDisposable: Disposable, @unchecked Sendable {
    // @unchecked: the count is locked.
    private let count = SpecLocked(0)
    /// Run on every dispose, before it is counted.
    private let onDispose: (@Sendable () -> Void)?

    init(onDispose: (@Sendable () -> Void)? = nil) {
        self.onDispose = onDispose
    }

    func dispose() {
        onDispose?()
        count.withLock { $0 += 1 }
    }

    var disposeCount: Int { count.value }
}
