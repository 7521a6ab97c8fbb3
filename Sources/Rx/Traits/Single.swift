/// The trait of `Single`: exactly one element, or an error.
public enum SingleTrait {}

/// A sequence that produces exactly one element or fails with an error: the shape of a
/// request and its response.
///
/// ```swift
/// Single<Int>.just(1)
///     .map { $0 + 1 }
///     .subscribe(onSuccess: { print($0) }, onFailure: { print($0) })
/// ```
public typealias Single<Element> = PrimitiveSequence<SingleTrait, Element>

/// The outcome of a `Single`: its element or its error.
public typealias SingleEvent<Element> = Result<Element, Swift.Error>

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The function through which `Single.create` reports the outcome. Only the first
    /// call counts; it may come from any thread.
    public typealias SingleObserver = @Sendable (SingleEvent<Element>) -> Void

    /// A single whose subscription runs `subscribe`, which reports the outcome through the
    /// observer it is given and returns a disposable that cancels the work.
    ///
    /// ```swift
    /// let data = Single<Data>.create { observer in
    ///     let task = session.dataTask(with: url) { data, _, error in
    ///         if let data { observer(.success(data)) } else { observer(.failure(error ?? RxError.unknown)) }
    ///     }
    ///     task.resume()
    ///     return Disposables.create { task.cancel() }
    /// }
    /// ```
    public static func create(subscribe: @escaping @Sendable (@escaping SingleObserver) -> Disposable)
        -> Single<Element>
    {
        Single(
            raw: Observable<Element>.create { observer in
                subscribe { event in
                    switch event {
                    case .success(let element):
                        observer.on(.next(element))
                        observer.on(.completed)
                    case .failure(let error):
                        observer.on(.error(error))
                    }
                }
            })
    }

    /// Subscribes with one handler for the outcome.
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribe(_ observer: @escaping (SingleEvent<Element>) -> Void) -> Disposable {
        subscribe(onSuccess: { observer(.success($0)) }, onFailure: { observer(.failure($0)) })
    }

    /// Subscribes with a handler for the element and one for the error.
    ///
    /// The handlers are not `@Sendable`: they run on whichever thread the single delivers
    /// on. `onDisposed` runs once, after `onSuccess` / `onFailure` or on `dispose()`. An
    /// error with no `onFailure` goes to `Hooks.defaultErrorHandler`.
    ///
    /// - Returns: A disposable that cancels the subscription.
    @inlinable
    public func subscribe(
        onSuccess: ((Element) -> Void)? = nil,
        onFailure: ((Swift.Error) -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let sink = TraitSubscribeSink<Element>(
            onSuccess: onSuccess, onFailure: Hooks.subscriptionErrorHandler(onFailure), onCompleted: nil,
            onDisposed: onDisposed,
            requiresElement: true)
        return primitiveSequence.source.traitSubscribe(sink, observer: AnyObserver { sink.on($0) })
    }

    /// Subscribes with handlers that receive `object` while it is alive; events that
    /// arrive after `object` was freed are ignored. Nothing retains `object`.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onSuccess: ((Object, Element) -> Void)? = nil,
        onFailure: ((Object, Swift.Error) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onSuccess: { [weak object] element in
                guard let object else { return }
                onSuccess?(object, element)
            },
            onFailure: { [weak object] error in
                guard let object else { return }
                onFailure?(object, error)
            },
            onDisposed: { [weak object] in
                guard let object else { return }
                onDisposed?(object)
            })
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// A single of `element`, delivered during subscription.
    @inlinable
    public static func just(_ element: Element) -> Single<Element> {
        Single(raw: TraitJustProducer(element))
    }

    /// A single of `element`, delivered on `scheduler`.
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Single<Element> {
        Single(raw: Observable<Element>.just(element, scheduler: scheduler))
    }

    /// A single that fails at once with `error`.
    public static func error(_ error: Swift.Error) -> Single<Element> {
        Single(raw: Observable<Element>.error(error))
    }

    /// A single that never produces anything.
    public static func never() -> Single<Element> {
        Single(raw: Observable<Element>.never())
    }
}

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// Runs side effects at points of the single's life, passing its events through.
    ///
    /// An error thrown by `onSuccess`, `afterSuccess` or `onError` ends the single with it.
    ///
    /// - Parameters:
    ///   - onSuccess: Before the element is delivered.
    ///   - afterSuccess: After the element was delivered.
    ///   - onError: Before the error is delivered.
    ///   - afterError: After the error was delivered.
    ///   - onSubscribe: Before subscribing to the source.
    ///   - onSubscribed: After subscribing to the source.
    ///   - onDispose: After the subscription ended, however it ended.
    public func `do`(
        onSuccess: (@Sendable (Element) throws -> Void)? = nil,
        afterSuccess: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        afterError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Single<Element> {
        let handlers = TraitDoHandlers<Element>(
            onNext: onSuccess, afterNext: afterSuccess, onError: onError, afterError: afterError,
            onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose)
        return Single(raw: Observable.traitDo(primitiveSequence.source, handlers))
    }

    /// The element if `predicate` holds for it, otherwise nothing: a `Maybe`. A thrown
    /// error ends it with the error.
    public func filter(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source.filter(predicate))
    }

    /// The element transformed by `transform`; a thrown error becomes the single's error.
    @inlinable
    public func map<Result>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Single<Result> {
        Single(raw: Observable.traitMap(primitiveSequence.source, transform))
    }

    /// The element transformed by `transform`, or nothing when it returns `nil`: a `Maybe`.
    public func compactMap<Result>(_ transform: @escaping @Sendable (Element) throws -> Result?) -> Maybe<Result> {
        Maybe(raw: Observable.traitCompactMap(primitiveSequence.source, transform))
    }

    /// The outcome of the single that `selector` makes from the element.
    @inlinable
    public func flatMap<Result>(_ selector: @escaping @Sendable (Element) throws -> Single<Result>)
        -> Single<Result>
    {
        Single(raw: Observable.traitFlatMap(primitiveSequence.source, selector))
    }

    /// The outcome of the maybe that `selector` makes from the element.
    public func flatMapMaybe<Result>(_ selector: @escaping @Sendable (Element) throws -> Maybe<Result>)
        -> Maybe<Result>
    {
        Maybe(raw: Observable.traitFlatMap(primitiveSequence.source, selector))
    }

    /// The outcome of the completable that `selector` makes from the element.
    public func flatMapCompletable(_ selector: @escaping @Sendable (Element) throws -> Completable) -> Completable {
        Completable(raw: Observable.traitFlatMap(primitiveSequence.source, selector))
    }

    /// This single as a `Maybe` (which always has an element).
    public func asMaybe() -> Maybe<Element> {
        Maybe(raw: primitiveSequence.source)
    }

    /// This single as a `Completable`: its element is dropped.
    public func asCompletable() -> Completable {
        primitiveSequence.source.asCompletable()
    }
}

/// The end of a trait `subscribe(on…:)` chain: calls the user's handlers for the first
/// event, then disposes the subscription, so that `onDisposed` follows at once.
///
/// The handlers are released as soon as the subscription ends (its event, or
/// `dispose()`), as RxSwift releases them: an app that keeps the returned disposable in a
/// bag owned by the object its handlers capture would otherwise keep that object alive.
/// Only the thread that sets the disposed bit reads and clears them, so the atomic in
/// `SubscriptionCore` orders every access.
@usableFromInline
final class TraitSubscribeSink<Element>: SubscriptionCore, @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var onSuccess: ((Element) -> Void)?
    @exclusivity(unchecked) @usableFromInline var onFailure: ((Swift.Error) -> Void)?
    @exclusivity(unchecked) @usableFromInline var onCompleted: (() -> Void)?
    @exclusivity(unchecked) @usableFromInline var onDisposed: (() -> Void)?
    /// Whether completing without an element is a failure (`RxError.noElements`), as for
    /// a `Single`, whose grammar it breaks.
    @usableFromInline let requiresElement: Bool

    @inlinable
    init(
        onSuccess: ((Element) -> Void)?, onFailure: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?,
        onDisposed: (() -> Void)?, requiresElement: Bool
    ) {
        self.onSuccess = onSuccess
        self.onFailure = onFailure
        self.onCompleted = onCompleted
        self.onDisposed = onDisposed
        self.requiresElement = requiresElement
        super.init()
    }

    @inlinable
    func on(_ event: Event<Element>) {
        let previous = state.fetchOr(1)
        guard previous & 1 == 0 else { return }
        // This thread set the disposed bit: the handlers are its alone (see the type). Each
        // is moved out (`take()`), not copied: no retain and release to call it.
        switch event {
        case .next(let element):
            let onSuccess = self.onSuccess.take()
            onSuccess?(element)
        case .error(let error):
            let onFailure = self.onFailure.take()
            traitReportUnhandled(error, to: onFailure)
        case .completed:
            if requiresElement {
                let onFailure = self.onFailure.take()
                traitReportUnhandled(RxError.noElements, to: onFailure)
            } else {
                let onCompleted = self.onCompleted.take()
                onCompleted?()
            }
        }
        finishDisposal(previousState: previous)
    }

    @usableFromInline
    override func didDispose() {
        // Runs once, on the thread that set the disposed bit.
        onSuccess = nil
        onFailure = nil
        onCompleted = nil
        let onDisposed = self.onDisposed.take()
        onDisposed?()
    }
}
