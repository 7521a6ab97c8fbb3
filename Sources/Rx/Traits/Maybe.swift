/// The trait of `Maybe`: at most one element, then completion, or an error.
public enum MaybeTrait {}

/// A sequence that produces one element, or completes without one, or fails with an
/// error: a lookup that may find nothing.
///
/// ```swift
/// cache.rx.value(forKey: key)   // Maybe<Data>
///     .subscribe(onSuccess: { use($0) }, onError: { log($0) }, onCompleted: { fetch() })
/// ```
public typealias Maybe<Element> = PrimitiveSequence<MaybeTrait, Element>

/// The outcome of a `Maybe`.
public enum MaybeEvent<Element> {
    /// The one element (the underlying sequence emits `next` then `completed`).
    case success(Element)
    /// The maybe failed.
    case error(Swift.Error)
    /// The maybe completed without an element.
    case completed
}

extension MaybeEvent: Sendable where Element: Sendable {}

extension MaybeEvent: Equatable where Element: Equatable {
    /// Outcomes are equal when they are the same case with equal elements; two errors are
    /// equal as in `Event`'s `==` (same `NSError` domain and code, same description).
    public static func == (lhs: MaybeEvent<Element>, rhs: MaybeEvent<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.success(let l), .success(let r)): return l == r
        case (.completed, .completed): return true
        case (.error(let l), .error(let r)): return errorsAreEqual(l, r)
        default: return false
        }
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The function through which `Maybe.create` reports the outcome. Only the first call
    /// counts; it may come from any thread.
    public typealias MaybeObserver = @Sendable (MaybeEvent<Element>) -> Void

    /// A maybe whose subscription runs `subscribe`, which reports the outcome through the
    /// observer it is given and returns a disposable that cancels the work.
    public static func create(subscribe: @escaping @Sendable (@escaping MaybeObserver) -> Disposable)
        -> Maybe<Element>
    {
        Maybe(
            raw: Observable<Element>.create { observer in
                subscribe { event in
                    switch event {
                    case .success(let element):
                        observer.on(.next(element))
                        observer.on(.completed)
                    case .error(let error):
                        observer.on(.error(error))
                    case .completed:
                        observer.on(.completed)
                    }
                }
            })
    }

    /// Subscribes with one handler for the outcome.
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribe(_ observer: @escaping (MaybeEvent<Element>) -> Void) -> Disposable {
        subscribe(
            onSuccess: { observer(.success($0)) }, onError: { observer(.error($0)) },
            onCompleted: { observer(.completed) })
    }

    /// Subscribes with a handler for each outcome: exactly one of them runs.
    ///
    /// The handlers are not `@Sendable`: they run on whichever thread the maybe delivers
    /// on. `onDisposed` runs once, after the outcome's handler or on `dispose()`. An error
    /// with no `onError` goes to `Hooks.defaultErrorHandler`.
    ///
    /// - Returns: A disposable that cancels the subscription.
    @inlinable
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let sink = TraitSubscribeSink<Element>(
            onSuccess: onSuccess, onFailure: Hooks.subscriptionErrorHandler(onError), onCompleted: onCompleted,
            onDisposed: onDisposed,
            requiresElement: false)
        return primitiveSequence.source.traitSubscribe(sink, observer: AnyObserver { sink.on($0) })
    }

    /// `subscribe(onSuccess:onError:onCompleted:onDisposed:)` with the error handler
    /// labelled as `Single`'s is.
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil,
        onFailure: @escaping (Swift.Error) -> Void,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        subscribe(onSuccess: onSuccess, onError: onFailure, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes with handlers that receive `object` while it is alive; events that
    /// arrive after `object` was freed are ignored. Nothing retains `object`.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onSuccess: ((Object, Element) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onSuccess: { [weak object] element in
                guard let object else { return }
                onSuccess?(object, element)
            },
            onError: { [weak object] error in
                guard let object else { return }
                onError?(object, error)
            },
            onCompleted: { [weak object] in
                guard let object else { return }
                onCompleted?(object)
            },
            onDisposed: { [weak object] in
                guard let object else { return }
                onDisposed?(object)
            })
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// A maybe of `element`, delivered during subscription.
    @inlinable
    public static func just(_ element: Element) -> Maybe<Element> {
        Maybe(raw: TraitJustProducer(element))
    }

    /// A maybe of `element`, delivered on `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Maybe<Element> {
        Maybe(raw: Observable<Element>.just(element, scheduler: scheduler))
    }

    /// A maybe that fails at once with `error`.
    public static func error(_ error: Swift.Error) -> Maybe<Element> {
        Maybe(raw: Observable<Element>.error(error))
    }

    /// A maybe that never produces anything.
    public static func never() -> Maybe<Element> {
        Maybe(raw: Observable<Element>.never())
    }

    /// A maybe that completes at once, without an element.
    public static func empty() -> Maybe<Element> {
        Maybe(raw: Observable<Element>.empty())
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// Runs side effects at points of the maybe's life, passing its events through.
    ///
    /// An error thrown by `onNext`, `afterNext`, `onError` or `onCompleted` ends the maybe
    /// with it.
    ///
    /// - Parameters:
    ///   - onNext: Before the element is delivered.
    ///   - afterNext: After the element was delivered.
    ///   - onError: Before the error is delivered.
    ///   - afterError: After the error was delivered.
    ///   - onCompleted: Before completion is delivered.
    ///   - afterCompleted: After completion was delivered.
    ///   - onSubscribe: Before subscribing to the source.
    ///   - onSubscribed: After subscribing to the source.
    ///   - onDispose: After the subscription ended, however it ended.
    public func `do`(
        onNext: (@Sendable (Element) throws -> Void)? = nil,
        afterNext: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        afterError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Maybe<Element> {
        let handlers = TraitDoHandlers<Element>(
            onNext: onNext, afterNext: afterNext, onError: onError, afterError: afterError,
            onCompleted: onCompleted, afterCompleted: afterCompleted, onSubscribe: onSubscribe,
            onSubscribed: onSubscribed, onDispose: onDispose)
        return Maybe(raw: Observable.traitDo(primitiveSequence.source, handlers))
    }

    /// The element if `predicate` holds for it, otherwise nothing. A thrown error ends the
    /// maybe with it.
    public func filter(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.filter(predicate))
    }

    /// The element transformed by `transform`; a thrown error becomes the maybe's error.
    @inlinable
    public func map<Result>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Maybe<Result> {
        Maybe(raw: Observable.traitMap(primitiveSequence.source, transform))
    }

    /// The element transformed by `transform`, or nothing when it returns `nil`.
    public func compactMap<Result>(_ transform: @escaping @Sendable (Element) throws -> Result?) -> Maybe<Result> {
        Maybe(raw: Observable.traitCompactMap(primitiveSequence.source, transform))
    }

    /// The outcome of the maybe that `selector` makes from the element, if there is one;
    /// otherwise completes.
    @inlinable
    public func flatMap<Result>(_ selector: @escaping @Sendable (Element) throws -> Maybe<Result>)
        -> Maybe<Result>
    {
        Maybe(raw: Observable.traitFlatMap(primitiveSequence.source, selector))
    }

    /// This maybe as a `Completable`: its element, if any, is dropped.
    public func asCompletable() -> Completable {
        primitiveSequence.source.asCompletable()
    }
}
