/// The trait of `Completable`: no elements, only completion or an error.
public enum CompletableTrait {}

/// A sequence that only completes or fails: work done for its effect, such as a request
/// whose response body does not matter.
///
/// ```swift
/// client.rx.execute(DeleteUser(id: 1)).asCompletable()
///     .andThen(reloadUsers())
///     .subscribe(onCompleted: { print("done") }, onError: { print($0) })
/// ```
public typealias Completable = PrimitiveSequence<CompletableTrait, Swift.Never>

/// The outcome of a `Completable`.
public enum CompletableEvent: Sendable {
    /// The completable failed.
    case error(Swift.Error)
    /// The completable completed.
    case completed
}

extension CompletableEvent: Equatable {
    /// Outcomes are equal when both completed, or both failed with errors that are equal as
    /// in `Event`'s `==` (same `NSError` domain and code, same description).
    public static func == (lhs: CompletableEvent, rhs: CompletableEvent) -> Bool {
        switch (lhs, rhs) {
        case (.completed, .completed): return true
        case (.error(let l), .error(let r)): return errorsAreEqual(l, r)
        default: return false
        }
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// The function through which `Completable.create` reports the outcome. Only the first
    /// call counts; it may come from any thread.
    public typealias CompletableObserver = @Sendable (CompletableEvent) -> Void

    /// A completable whose subscription runs `subscribe`, which reports the outcome
    /// through the observer it is given and returns a disposable that cancels the work.
    public static func create(subscribe: @escaping @Sendable (@escaping CompletableObserver) -> Disposable)
        -> Completable
    {
        Completable(
            raw: Observable<Never>.create { observer in
                subscribe { event in
                    switch event {
                    case .error(let error): observer.on(.error(error))
                    case .completed: observer.on(.completed)
                    }
                }
            })
    }

    /// Subscribes with one handler for the outcome.
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribe(_ observer: @escaping (CompletableEvent) -> Void) -> Disposable {
        subscribe(onCompleted: { observer(.completed) }, onError: { observer(.error($0)) })
    }

    /// Subscribes with a handler for completion and one for the error.
    ///
    /// The handlers are not `@Sendable`: they run on whichever thread the completable
    /// delivers on. `onDisposed` runs once, after the outcome's handler or on `dispose()`.
    /// An error with no `onError` goes to `Hooks.defaultErrorHandler`.
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribe(
        onCompleted: (() -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let sink = TraitSubscribeSink<Never>(
            onSuccess: nil, onFailure: Hooks.subscriptionErrorHandler(onError), onCompleted: onCompleted,
            onDisposed: onDisposed,
            requiresElement: false)
        return primitiveSequence.source.traitSubscribe(sink, observer: AnyObserver { sink.on($0) })
    }

    /// Subscribes with handlers that receive `object` while it is alive; events that
    /// arrive after `object` was freed are ignored. Nothing retains `object`.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onCompleted: ((Object) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onCompleted: { [weak object] in
                guard let object else { return }
                onCompleted?(object)
            },
            onError: { [weak object] error in
                guard let object else { return }
                onError?(object, error)
            },
            onDisposed: { [weak object] in
                guard let object else { return }
                onDisposed?(object)
            })
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// A completable that fails at once with `error`.
    public static func error(_ error: Swift.Error) -> Completable {
        Completable(raw: Observable<Never>.error(error))
    }

    /// A completable that never terminates.
    public static func never() -> Completable {
        Completable(raw: Observable<Never>.never())
    }

    /// A completable that completes at once.
    public static func empty() -> Completable {
        Completable(raw: Observable<Never>.empty())
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Swift.Never {
    /// Runs side effects at points of the completable's life, passing its events through.
    ///
    /// An error thrown by `onError` or `onCompleted` ends the completable with it.
    ///
    /// - Parameters:
    ///   - onError: Before the error is delivered.
    ///   - afterError: After the error was delivered.
    ///   - onCompleted: Before completion is delivered.
    ///   - afterCompleted: After completion was delivered.
    ///   - onSubscribe: Before subscribing to the source.
    ///   - onSubscribed: After subscribing to the source.
    ///   - onDispose: After the subscription ended, however it ended.
    public func `do`(
        onError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        afterError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Completable {
        let handlers = TraitDoHandlers<Never>(
            onError: onError, afterError: afterError, onCompleted: onCompleted, afterCompleted: afterCompleted,
            onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose)
        return Completable(raw: Observable.traitDo(primitiveSequence.source, handlers))
    }

    /// This completable, then `second` once this one has completed.
    public func concat(_ second: Completable) -> Completable {
        Completable.concat([primitiveSequence, second])
    }

    /// The completables one after another, each subscribed when the previous one has
    /// completed; the first error ends the whole. The sequence is iterated lazily, once
    /// per subscription.
    public static func concat<Sequence: Swift.Sequence>(_ sequence: Sequence) -> Completable
    where Sequence.Element == Completable {
        Completable(raw: Observable<Never>.completableConcat(sequence))
    }

    /// The completables one after another; the first error ends the whole.
    public static func concat<Collection: Swift.Collection>(_ collection: Collection) -> Completable
    where Collection.Element == Completable {
        Completable(raw: Observable<Never>.completableConcat(collection))
    }

    /// The completables one after another; the first error ends the whole.
    public static func concat(_ sources: Completable...) -> Completable {
        Completable(raw: Observable<Never>.completableConcat(sources))
    }

    /// All the completables at once: completes when all have completed; the first error
    /// ends the whole. (For completables, `zip` and `merge` are the same.)
    public static func zip<Collection: Swift.Collection>(_ sources: Collection) -> Completable
    where Collection.Element == Completable {
        Completable(raw: Observable<Never>.completableMerge(sources.map(\.source)))
    }

    /// All the completables at once: completes when all have completed.
    public static func zip(_ sources: [Completable]) -> Completable {
        Completable(raw: Observable<Never>.completableMerge(sources.map(\.source)))
    }

    /// All the completables at once: completes when all have completed.
    public static func zip(_ sources: Completable...) -> Completable {
        Completable(raw: Observable<Never>.completableMerge(sources.map(\.source)))
    }

    /// All the completables at once: completes when all have completed; the first error
    /// ends the whole. The same as `zip`, under RxSwift's earlier name.
    public static func merge<Collection: Swift.Collection>(_ sources: Collection) -> Completable
    where Collection.Element == Completable {
        zip(sources)
    }

    /// All the completables at once: completes when all have completed. Same as `zip`.
    public static func merge(_ sources: [Completable]) -> Completable {
        zip(sources)
    }

    /// All the completables at once: completes when all have completed. Same as `zip`.
    public static func merge(_ sources: Completable...) -> Completable {
        zip(sources)
    }
}

extension Observable where Element == Never {
    /// `Completable.concat` over an iterator made per subscription.
    fileprivate static func completableConcat<Sources: Swift.Sequence>(_ sources: Sources) -> Observable<Never>
    where Sources.Element == Completable {
        // The sequence is the caller's value, iterated by one subscription at a time; the
        // factory erases its type so that the subscription closure needs no metadata of it.
        let makeIterator = UncheckedSendable({ AnyIterator(sources.makeIterator()) })
        return make { observer in
            let sink = CompletableConcatSink(iterator: makeIterator.value(), downstream: observer)
            sink.subscribeNext()
            return sink
        }
    }

    /// `Completable.zip` / `merge`: every source at once.
    fileprivate static func completableMerge(_ sources: [Observable<Never>]) -> Observable<Never> {
        make { observer in
            if sources.isEmpty {
                observer.on(.completed)
                return Disposables.create()
            }
            let sink = CompletableMergeSink(count: sources.count, downstream: observer)
            let group = CompositeDisposable()
            sink.attach(group)
            for source in sources {
                // A synchronous error disposes the group: the rest are never subscribed.
                guard !sink.isStoppedOrDisposed else { break }
                // Each source has its own gate: one that completes twice must not count
                // twice. Its slot is in the group before it is subscribed, so that its
                // completion, even a synchronous one, can release it (as RxSwift's merge does).
                let gate = SourceGate()
                let slot = SingleAssignmentDisposable()
                guard let key = group.insert(slot) else { break }
                slot.setDisposable(
                    source.subscribe(AnyObserver { sink.on($0, source: gate) { group.remove(for: key) } }))
            }
            return sink
        }
    }
}

/// One subscription of `Completable.concat`.
///
/// Subscribing to the next source happens in a loop guarded by `gate`, so that sources
/// completing synchronously do not nest subscriptions on the stack; the iterator is only
/// touched by the thread that holds the gate.
final class CompletableConcatSink: Sink<Never>, @unchecked Sendable {
    private let iterator: AnyIterator<Completable>
    private let current = SerialDisposable()
    private let gate = AtomicInt(0)

    init(iterator: AnyIterator<Completable>, downstream: AnyObserver<Never>) {
        self.iterator = iterator
        super.init(downstream: downstream)
    }

    func subscribeNext() {
        guard gate.add(1) == 1 else { return }
        repeat {
            guard !isStoppedOrDisposed else { return }
            guard let next = iterator.next() else {
                forwardTerminal(.completed)
                return
            }
            let slot = SingleAssignmentDisposable()
            // Replacing the previous subscription disposes it: it has completed.
            current.disposable = slot
            // A completed source that completes again must not skip the one after it.
            let source = SourceGate()
            slot.setDisposable(next.source.subscribe(AnyObserver { self.on($0, source: source) }))
        } while gate.add(-1) != 0
    }

    private func on(_ event: Event<Never>, source: SourceGate) {
        guard source.close() else { return }
        switch event {
        case .error: forwardTerminal(event)
        case .completed: subscribeNext()
        }
    }

    override func didDispose() {
        current.dispose()
    }
}

/// One subscription of `Completable.zip` / `merge`: completes when every source has.
final class CompletableMergeSink: Sink<Never>, @unchecked Sendable {
    private let remaining: AtomicInt

    init(count: Int, downstream: AnyObserver<Never>) {
        remaining = AtomicInt(count)
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Never>, source: SourceGate, release: () -> Void) {
        guard source.close() else { return }
        switch event {
        case .error:
            forwardTerminal(event)
        case .completed:
            release()
            if remaining.add(-1) == 0 { forwardTerminal(.completed) }
        }
    }
}
