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

/// A prepared request and, once executed, the handle that cancels it; Leash's stand-in
/// for Alamofire's `DataRequest`.
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
    // @unchecked: `convertible` is immutable; the rest is behind `lock`.

    /// The request, as Alamofire exposed it.
    public let convertible: URLRequestConvertible
    private let lock = Lock()
    private var subscription: Disposable?
    private var cancelled = false
    private var finished = false
    /// What `suspend()` and `resume()` reach, for handles of executions.
    private var control: ExecutionControl? { lock.withLock { controlValue } }
    private var controlValue: ExecutionControl?

    /// The control of the execution this handle starts (made before it starts).
    func makeControl() -> ExecutionControl {
        let control = ExecutionControl()
        lock.withLock { controlValue = control }
        return control
    }

    /// Wraps a built request.
    public convenience init(_ request: URLRequest) {
        self.init(convertible: request)
    }

    /// Wraps anything that produces a request.
    init(convertible: URLRequestConvertible) {
        self.convertible = convertible
    }

    /// The `URLRequest`.
    public var urlRequest: URLRequest? { try? convertible.asURLRequest() }

    /// Executes `endpoint` on `client`, serializing with `serializer`, and calls
    /// `completion` for each outcome (twice for cache-then-network) on `queue` (default:
    /// the manager's callback queue, else the thread the outcome arrives on).
    @discardableResult
    public func response<Serializer: ResponseSerializer>(
        client: Client, endpoint: Endpoint, serializer: Serializer, queue: DispatchQueue? = nil,
        completion: @escaping (Response<Serializer.SerializedObject>) -> Void
    ) -> Self {
        let execution = client.execute(endpoint, serializer: serializer, queue: queue, completion: completion)
        attach(execution)
        return self
    }

    /// Holds the execution's subscription, to cancel it; disposes it at once if this
    /// request was cancelled already, and drops it if the execution already ended.
    func attach(_ disposable: Disposable) {
        let disposeNow = lock.withLock { () -> Bool in
            if cancelled { return true }
            if !finished { subscription = disposable }
            return false
        }
        if disposeNow { disposable.dispose() }
    }

    /// Lets go of the execution, which ended by itself: the subscription's handlers hold
    /// this request, so keeping the subscription would keep both alive forever.
    func executionEnded() {
        let released = lock.withLock { () -> Disposable? in
            finished = true
            defer { subscription = nil }
            return subscription
        }
        // Released here, outside the lock: freeing it may run the app's deinits.
        withExtendedLifetime(released) {}
    }

    /// Cancels the execution: the transport's task is cancelled, and no callback starts
    /// afterwards (callbacks delivered on a queue check for cancellation just before
    /// running). Does nothing after the execution ended.
    public func cancel() {
        let subscription = lock.withLock { () -> Disposable? in
            guard !cancelled else { return nil }
            cancelled = true
            defer { self.subscription = nil }
            return self.subscription
        }
        subscription?.dispose()
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Pauses the execution: the request in flight is stopped (quietly: the execution
    /// does not fail) and nothing more is sent until `resume()`. A download keeps the
    /// bytes it has and continues from them; any other request starts over when
    /// resumed. An idle timeout waits meanwhile; a whole-execution timeout keeps running.
    ///
    /// Leash does this itself on every platform rather than calling URLSession's
    /// `suspend()`: on Linux, a suspended task that is resumed starts over and delivers
    /// its body a second time after the bytes already received.
    public func suspend() {
        control?.suspend()
    }

    /// Continues a suspended execution (see `suspend()`).
    public func resume() {
        control?.resume()
    }

    /// Whether the execution is suspended.
    public var isSuspended: Bool { control?.suspended ?? false }

    /// Same as `cancel()`.
    public func dispose() {
        cancel()
    }

    /// Same as `isCancelled`.
    public var isDisposed: Bool { isCancelled }
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
