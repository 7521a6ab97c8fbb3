import Dispatch
import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that can produce a `URLRequest` (Alamofire's protocol of the same name).
public protocol URLRequestConvertible {
    /// The request.
    func asURLRequest() throws -> URLRequest
}

extension URLRequest: URLRequestConvertible {
    /// The request itself.
    public func asURLRequest() throws -> URLRequest { self }
}

/// A prepared request and, once executed, the handle that cancels, suspends and resumes
/// it; Leash's stand-in for Alamofire's `DataRequest`.
///
/// One type, and one name, for both sides: the handle `client.execute` and
/// `client.request(for:)` return, and the request interceptors see
/// (`chain.request.convertible.asURLRequest()`). That is Alamofire's model, where a
/// `DataRequest` is both, and the spelling Leash's README uses on both sides, so code
/// written for Leash on Alamofire reads the same here.
///
/// ```swift
/// let request = try client.request(for: APIEndpoint.readAllUsers)
/// request.response(client: client, endpoint: APIEndpoint.readAllUsers, serializer: JSONResponseSerializer()) {
///     (response: Response<Any>) in print(response)
/// }
/// request.cancel()
/// ```
///
/// Keeping a handle keeps nothing of a finished execution alive: the handle lets go of
/// the execution when it ends, and `cancel()` after that does nothing.
public final class DataRequest: Cancelable, @unchecked Sendable {
    // @unchecked: `source` is immutable; the rest is behind `state`.
    //
    // One type for the request and its handle, as Alamofire has it: the Leash README shows
    // both sides (`client.request(for:)` then `.response(…)` and `cancel()`, and
    // `chain.request.convertible.asURLRequest()` in an interceptor), so the name stays.
    private struct State {
        /// What `cancel()`, `suspend()` and `resume()` reach: the execution, or the
        /// handle of the execution `response(…)` started.
        var execution: ExecutionControl?
        var cancelled = false
        var finished = false
        /// Whether `suspend()` was called without `resume()` since.
        var suspended = false
    }

    /// What the request is made from, kept inline: an existential of an endpoint request
    /// (a client and an endpoint) is too big for its inline buffer and would cost an
    /// allocation per execution, so `convertible` makes one only when asked.
    private enum Source {
        case built(URLRequest)
        case endpoint(Client, Endpoint)
    }

    private let source: Source
    private let state = LockedState(State())

    /// Wraps a built request.
    public init(_ request: URLRequest) {
        source = .built(request)
    }

    /// The handle of an execution of `endpoint` on `client`: its request is built when asked.
    init(client: Client, endpoint: Endpoint) {
        source = .endpoint(client, endpoint)
    }

    /// The request, as Alamofire exposed it.
    public var convertible: URLRequestConvertible {
        switch source {
        case .built(let request): request
        case .endpoint(let client, let endpoint): EndpointRequest(client: client, endpoint: endpoint)
        }
    }

    /// The `URLRequest`.
    public var urlRequest: URLRequest? {
        if case .built(let request) = source { return request }
        return try? convertible.asURLRequest()
    }

    /// Executes `endpoint` on `client`, serializing with `serializer`, and calls
    /// `completion` for each outcome (twice for cache-then-network) on `queue` (default:
    /// the manager's callback queue, else the thread the outcome arrives on).
    @discardableResult
    public func response<Serializer: ResponseSerializer>(
        client: Client, endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil,
        completion: @escaping (Response<Serializer.SerializedObject>) -> Void
    ) -> Self {
        attach(client.execute(endpoint, serializer: serializer, queue: queue, completion: completion))
        return self
    }

    /// `execution` is what this handle controls from now on; cancelled at once if this
    /// request was cancelled already, suspended if it is suspended.
    func attach(_ execution: ExecutionControl) {
        let (cancelNow, suspendNow) = state.withLock { state -> (Bool, Bool) in
            if state.cancelled { return (true, false) }
            if !state.finished { state.execution = execution }
            return (false, state.suspended)
        }
        if cancelNow { execution.cancel() } else if suspendNow { execution.suspend() }
    }

    /// The execution ended by itself: let go of it (it holds this handle, so keeping it
    /// would keep both alive forever); `cancel()` does nothing from now on.
    func executionEnded() {
        let released = state.withLock { state -> ExecutionControl? in
            state.finished = true
            defer { state.execution = nil }
            return state.execution
        }
        // Released here, outside the lock: freeing it may run the app's deinits.
        withExtendedLifetime(released) {}
    }

    /// Cancels the execution: the transport's task is cancelled, and no callback starts
    /// afterwards (callbacks delivered on a queue check for cancellation just before
    /// running), save one already past that check on another thread as `cancel()` ran:
    /// as with RxSwift's `dispose()`, waiting for it instead could deadlock an app that
    /// cancels from a thread the callback waits for. Does nothing after the execution
    /// ended.
    public func cancel() {
        let execution = state.withLock { state -> ExecutionControl? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            defer { state.execution = nil }
            return state.execution
        }
        execution?.cancel()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Pauses the execution (callback forms: `Client.execute`, `download`, `upload`): the
    /// request in flight is stopped (quietly: the execution
    /// does not fail) and nothing more is sent until `resume()`. A download keeps the
    /// bytes it has and continues from them; any other request starts over when
    /// resumed. An idle timeout waits meanwhile; a whole-execution timeout keeps running.
    ///
    /// Leash does this itself on every platform rather than calling URLSession's
    /// `suspend()`: on Linux, a suspended task that is resumed starts over and delivers
    /// its body a second time after the bytes already received.
    public func suspend() {
        let execution = state.withLock { state -> ExecutionControl? in
            if state.suspended { return nil }
            state.suspended = true
            return state.execution
        }
        execution?.suspend()
    }

    /// Continues a suspended execution (see `suspend()`).
    public func resume() {
        let execution = state.withLock { state -> ExecutionControl? in
            if !state.suspended { return nil }
            state.suspended = false
            return state.execution
        }
        execution?.resume()
    }

    /// Whether the execution is suspended.
    public var isSuspended: Bool { state.withLock { $0.suspended } }

    /// Same as `cancel()`.
    public func dispose() {
        cancel()
    }

    /// Same as `isCancelled`.
    public var isDisposed: Bool { isCancelled }
}

/// What a `DataRequest` handle controls: an execution, or another handle.
protocol ExecutionControl: AnyObject, Sendable {
    func cancel()
    func suspend()
    func resume()
}

extension DataRequest: ExecutionControl {}

extension Execution: ExecutionControl {
    func cancel() {
        dispose()
    }
}

/// An endpoint's request, built only if someone asks for it: the handle returned by
/// `Client.execute` does not build the request a second time (the pipeline builds it, per
/// attempt, reading the credential once).
struct EndpointRequest: URLRequestConvertible {
    let client: Client
    let endpoint: Endpoint

    func asURLRequest() throws -> URLRequest {
        try client.urlRequest(for: endpoint)
    }
}
