extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The single's element, awaited; its error is thrown.
    ///
    /// Cancelling the awaiting task disposes the subscription and throws
    /// `CancellationError`. In a task that is already cancelled, a source that ends as it
    /// is subscribed (`just`, `empty`, `error`) still gives its result, as in RxSwift.
    ///
    /// ```swift
    /// let user = try await client.rx.execute(GetUser(id: 1)).value
    /// ```
    public var value: Element {
        get async throws {
            let source = primitiveSequence.source
            let box = try await traitAwait { bridge in
                source.traitSubscribe(
                    TraitSubscribeSink<Element>(
                        onSuccess: { bridge.finish(.success(UncheckedSendable($0))) },
                        onFailure: { bridge.finish(.failure($0)) }, onCompleted: nil, onDisposed: nil,
                        requiresElement: true))
            }
            return box.value
        }
    }

    /// A single whose subscription runs `work` in a new task and succeeds with what it
    /// returns or fails with what it throws; disposing the subscription cancels the task.
    ///
    /// ```swift
    /// let avatar = Single<Data>.create { try await imageLoader.load(url) }
    /// ```
    ///
    /// - Parameters:
    ///   - detached: Whether the task is detached (inheriting neither the priority nor
    ///     the task-local values of the subscribing context).
    ///   - priority: The task's priority.
    ///   - work: The asynchronous work; it should return or throw soon once its task is
    ///     cancelled.
    @_disfavoredOverload
    public static func create(
        detached: Bool = false,
        priority: TaskPriority? = nil,
        work: @escaping @Sendable () async throws -> Element
    ) -> Single<Element> {
        Single(
            raw: Observable<Element>.asyncCreate(detached: detached, priority: priority) { observer in
                observer(try await work())
            })
    }

    /// A single whose subscription runs `work` in a new task; disposing the subscription
    /// cancels the task. The same as `create(work:)`.
    ///
    /// ```swift
    /// let avatar = Single<Data>.from { try await imageLoader.load(url) }
    /// ```
    public static func from(_ work: @escaping @Sendable () async throws -> Element) -> Single<Element> {
        create { observer in
            let task = Task {
                do {
                    observer(.success(try await work()))
                } catch {
                    observer(.failure(error))
                }
            }
            return Disposables.create { task.cancel() }
        }
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The maybe's element, or `nil` if it completes without one, awaited; its error is
    /// thrown.
    ///
    /// Cancelling the awaiting task disposes the subscription and throws
    /// `CancellationError`. In a task that is already cancelled, a source that ends as it
    /// is subscribed (`just`, `empty`, `error`) still gives its result, as in RxSwift.
    public var value: Element? {
        get async throws {
            let source = primitiveSequence.source
            let box = try await traitAwait { bridge in
                source.traitSubscribe(
                    TraitSubscribeSink<Element>(
                        onSuccess: { bridge.finish(.success(UncheckedSendable(Optional($0)))) },
                        onFailure: { bridge.finish(.failure($0)) },
                        onCompleted: { bridge.finish(.success(UncheckedSendable(nil))) }, onDisposed: nil,
                        requiresElement: false))
            }
            return box.value
        }
    }

    /// A maybe whose subscription runs `work` in a new task, completing without an element
    /// when `work` is `nil`; cancelling the subscription cancels the task.
    public static func from(_ work: (@Sendable () async throws -> Element)?) -> Maybe<Element> {
        create { observer in
            guard let work else {
                observer(.completed)
                return Disposables.create()
            }
            let task = Task {
                do {
                    observer(.success(try await work()))
                } catch {
                    observer(.error(error))
                }
            }
            return Disposables.create { task.cancel() }
        }
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// The completable's completion, awaited; its error is thrown.
    ///
    /// Cancelling the awaiting task disposes the subscription and throws
    /// `CancellationError`. In a task that is already cancelled, a source that ends as it
    /// is subscribed (`just`, `empty`, `error`) still gives its result, as in RxSwift.
    public var value: Void {
        get async throws {
            let source = primitiveSequence.source
            _ = try await traitAwait { bridge in
                source.traitSubscribe(
                    TraitSubscribeSink<Never>(
                        onSuccess: nil, onFailure: { bridge.finish(.failure($0)) },
                        onCompleted: { bridge.finish(.success(())) }, onDisposed: nil, requiresElement: false))
            }
        }
    }

    /// A completable whose subscription runs `work` in a new task; cancelling the
    /// subscription cancels the task.
    public static func from(_ work: @escaping @Sendable () async throws -> Void) -> Completable {
        create { observer in
            let task = Task {
                do {
                    try await work()
                    observer(.completed)
                } catch {
                    observer(.error(error))
                }
            }
            return Disposables.create { task.cancel() }
        }
    }
}

extension Observable {
    /// Subscribes `sink`, which must call `on` for events, like `subscribe(onNext:…)` does.
    fileprivate func traitSubscribe(_ sink: TraitSubscribeSink<Element>) -> Disposable {
        traitSubscribe(sink, observer: AnyObserver { sink.on($0) })
    }
}

/// Awaits the outcome that `subscribe` reports to the bridge it is given; cancelling the
/// task disposes the subscription and throws `CancellationError`.
private func traitAwait<Value: Sendable>(_ subscribe: (TraitAwaitBridge<Value>) -> Disposable) async throws -> Value {
    let bridge = TraitAwaitBridge<Value>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            bridge.start(continuation, subscribe: subscribe)
        }
    } onCancel: {
        bridge.cancel()
    }
}

/// Connects one subscription to one continuation: whichever of the outcome and the
/// cancellation comes first resumes the continuation, exactly once, and cancellation
/// disposes the subscription (at once, or as soon as it exists).
final class TraitAwaitBridge<Value: Sendable>: RxResource, @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Swift.Error>?
        var subscription: Disposable?
        var isCancelled = false
        var isFinished = false
    }

    private let state = LockedState(State())

    fileprivate func start(
        _ continuation: CheckedContinuation<Value, Swift.Error>, subscribe: (TraitAwaitBridge<Value>) -> Disposable
    ) {
        state.withLock { $0.continuation = continuation }
        // Subscribed even in a task that is already cancelled, as RxSwift does: a source that
        // has already ended (`Completable.empty()`, `Single.just`) gives its result during
        // the subscription, and that result is what the caller gets.
        let subscription = subscribe(self)
        let (disposeNow, cancelled) = state.withLock {
            state -> (Bool, CheckedContinuation<Value, Swift.Error>?) in
            if state.isFinished { return (true, nil) }
            if state.isCancelled {
                // A source still running in a cancelled task is let go: the caller gets
                // `CancellationError` (where RxSwift would wait forever).
                defer { state.continuation = nil }
                return (true, state.continuation)
            }
            state.subscription = subscription
            return (false, nil)
        }
        if disposeNow { subscription.dispose() }
        cancelled?.resume(throwing: CancellationError())
    }

    func finish(_ result: Result<Value, Swift.Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, Swift.Error>? in
            state.isFinished = true
            state.subscription = nil
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    fileprivate func cancel() {
        let (continuation, subscription) = state.withLock {
            state -> (CheckedContinuation<Value, Swift.Error>?, Disposable?) in
            state.isCancelled = true
            defer {
                state.continuation = nil
                state.subscription = nil
            }
            return (state.continuation, state.subscription)
        }
        subscription?.dispose()
        continuation?.resume(throwing: CancellationError())
    }
}
