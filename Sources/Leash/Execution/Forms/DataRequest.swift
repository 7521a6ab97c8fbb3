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
    // @unchecked: `convertible` is immutable; the rest is behind `lock`.

    /// The request, as Alamofire exposed it.
    public let convertible: URLRequestConvertible
    private let lock = Lock()
    private var subscription: Disposable?
    private var cancelled = false
    private var finished = false
    /// Whether `suspend()` was called without `resume()` since.
    private var suspended = false
    /// The execution's attempt running now (each attempt attaches itself; a retry
    /// replaces it); let go when the execution ends.
    private var run: AttemptRun?

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
        let released = lock.withLock { () -> (Disposable?, AttemptRun?) in
            finished = true
            defer {
                subscription = nil
                run = nil
            }
            return (subscription, run)
        }
        // Released here, outside the lock: freeing it may run the app's deinits.
        withExtendedLifetime(released) {}
    }

    /// `run` is the execution's current attempt; returns whether it starts suspended.
    func attach(_ run: AttemptRun) -> Bool {
        lock.withLock {
            if !finished && !cancelled { self.run = run }
            return suspended
        }
    }

    /// Cancels the execution: the transport's task is cancelled, and no callback starts
    /// afterwards (callbacks delivered on a queue check for cancellation just before
    /// running). Does nothing after the execution ended.
    public func cancel() {
        let (subscription, run) = lock.withLock { () -> (Disposable?, AttemptRun?) in
            guard !cancelled else { return (nil, nil) }
            cancelled = true
            defer {
                self.subscription = nil
                self.run = nil
            }
            return (self.subscription, self.run)
        }
        subscription?.dispose()
        withExtendedLifetime(run) {}
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

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
        let run = lock.withLock { () -> AttemptRun? in
            if suspended { return nil }
            suspended = true
            return self.run
        }
        run?.suspend()
    }

    /// Continues a suspended execution (see `suspend()`).
    public func resume() {
        let run = lock.withLock { () -> AttemptRun? in
            if !suspended { return nil }
            suspended = false
            return self.run
        }
        run?.resume()
    }

    /// Whether the execution is suspended.
    public var isSuspended: Bool { lock.withLock { suspended } }

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
