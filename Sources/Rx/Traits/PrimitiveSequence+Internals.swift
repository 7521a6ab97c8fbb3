// The producers behind the hot trait operators (`Single.just`, `map`, `flatMap`): one
// allocation each. A producer class's overridden `run` always executes unspecialised
// (through the generic vtable entry), so each producer carries a non-capturing closure,
// created in its `@inlinable` initialiser and so specialised by the client module, that
// does the actual work.

/// A trait producer whose one element is worked out during subscription, with no
/// upstream subscription and nothing to dispose: `just`, and `map` over one of these.
///
/// `map` and `flatMap` over such a source are fused when the chain is assembled (as
/// RxJava does with its scalar sources): the element is computed in place instead of
/// being sent through a sink subscribed to the source, which saves that sink (an
/// allocation, its atomics, its disposal) per operator and subscription. Nothing a
/// subscriber can see changes: the sink skipped is reachable by no one before the source
/// has already emitted everything, so it could never have been disposed or stopped early.
@usableFromInline
class TraitScalarProducer<Element>: Observable<Element>, @unchecked Sendable {
    // Sendable: immutable; subclasses hold the element or what computes it.
    /// Computes the element for one subscription; a thrown error is the sequence's error.
    @usableFromInline let scalar: (TraitScalarProducer<Element>) throws -> Element
    /// Sends the element (or the error) and `completed` to the observer.
    @usableFromInline let emit: (TraitScalarProducer<Element>, AnyObserver<Element>) -> Void

    // Both closures capture nothing and are made in the subclasses' inlinable initialisers,
    // so they are specialised in the client: an overridden `run` would execute unspecialised.
    @inlinable
    init(
        scalar: @escaping (TraitScalarProducer<Element>) throws -> Element,
        emit: @escaping (TraitScalarProducer<Element>, AnyObserver<Element>) -> Void
    ) {
        self.scalar = scalar
        self.emit = emit
        super.init()
    }

    @inlinable
    override var isTraitScalar: Bool { true }

    @inlinable
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        emit(self, observer)
        return NopDisposable()
    }
}

/// `just` for traits: the element, then `completed`, during subscription.
@usableFromInline
final class TraitJustProducer<Element>: TraitScalarProducer<Element>, @unchecked Sendable {
    // Sendable: immutable; the element is only handed to observers.
    @usableFromInline let element: Element

    @inlinable
    init(_ element: Element) {
        self.element = element
        super.init(
            scalar: { unsafeDowncast($0, to: TraitJustProducer<Element>.self).element },
            emit: { producer, observer in
                observer.on(.next(unsafeDowncast(producer, to: TraitJustProducer<Element>.self).element))
                observer.on(.completed)
            })
    }
}

/// `map` for traits over a `TraitScalarProducer`: the transformed element, computed in
/// place (see `TraitScalarProducer`).
@usableFromInline
final class TraitScalarMapProducer<Source, Result>: TraitScalarProducer<Result>, @unchecked Sendable {
    // Sendable: immutable (every field a `let`; the transform is `@Sendable`).
    @usableFromInline let source: TraitScalarProducer<Source>
    @usableFromInline let transform: @Sendable (Source) throws -> Result

    @inlinable
    init(source: TraitScalarProducer<Source>, transform: @escaping @Sendable (Source) throws -> Result) {
        self.source = source
        self.transform = transform
        super.init(
            scalar: { producer in
                let map = unsafeDowncast(producer, to: TraitScalarMapProducer<Source, Result>.self)
                return try map.transform(try map.source.scalar(map.source))
            },
            emit: { producer, observer in
                let map = unsafeDowncast(producer, to: TraitScalarMapProducer<Source, Result>.self)
                let element: Result
                do {
                    element = try map.transform(try map.source.scalar(map.source))
                } catch {
                    observer.on(.error(error))
                    return
                }
                observer.on(.next(element))
                observer.on(.completed)
            })
    }
}

extension Observable {
    /// The trait `map` of `source`: fused when the source is a scalar (see
    /// `TraitScalarProducer`), otherwise over a `MapSink`.
    @inlinable
    static func traitMap<Source>(
        _ source: Observable<Source>, _ transform: @escaping @Sendable (Source) throws -> Element
    ) -> Observable<Element> {
        if source.isTraitScalar {
            let scalar = unsafeDowncast(source, to: TraitScalarProducer<Source>.self)
            return TraitScalarMapProducer(source: scalar, transform: transform)
        }
        return TraitMapProducer(source: source, transform: transform)
    }

    /// The trait `flatMap` of `source`: fused when the source is a scalar (see
    /// `TraitScalarProducer`), otherwise over a `TraitFlatMapSink`.
    @inlinable
    static func traitFlatMap<Source, InnerTrait>(
        _ source: Observable<Source>,
        _ selector: @escaping @Sendable (Source) throws -> PrimitiveSequence<InnerTrait, Element>
    ) -> Observable<Element> {
        if source.isTraitScalar {
            let scalar = unsafeDowncast(source, to: TraitScalarProducer<Source>.self)
            return TraitScalarFlatMapProducer(source: scalar, selector: selector)
        }
        return TraitFlatMapProducer(source: source, selector: selector)
    }
}

/// `map` for traits, over the core's `MapSink`.
@usableFromInline
final class TraitMapProducer<Source, Result>: Observable<Result>, @unchecked Sendable {
    @usableFromInline let source: Observable<Source>
    @usableFromInline let transform: @Sendable (Source) throws -> Result
    @usableFromInline let subscribeSink: (TraitMapProducer<Source, Result>, AnyObserver<Result>) -> Disposable

    @inlinable
    init(source: Observable<Source>, transform: @escaping @Sendable (Source) throws -> Result) {
        self.source = source
        self.transform = transform
        subscribeSink = { producer, observer in
            let sink = MapSink(transform: producer.transform, downstream: observer)
            sink.traitAttach(producer.source.run(AnyObserver { sink.on($0) }))
            return sink
        }
        super.init()
    }

    @inlinable
    override func run(_ observer: AnyObserver<Result>) -> Disposable {
        subscribeSink(self, observer)
    }
}

/// `flatMap` for traits: the source's element becomes an inner trait, whose events go
/// downstream.
@usableFromInline
final class TraitFlatMapProducer<Source, InnerTrait, Result>: Observable<Result>, @unchecked Sendable {
    @usableFromInline let source: Observable<Source>
    @usableFromInline let selector: @Sendable (Source) throws -> PrimitiveSequence<InnerTrait, Result>
    @usableFromInline let subscribeSink:
        (TraitFlatMapProducer<Source, InnerTrait, Result>, AnyObserver<Result>) -> Disposable

    @inlinable
    init(
        source: Observable<Source>,
        selector: @escaping @Sendable (Source) throws -> PrimitiveSequence<InnerTrait, Result>
    ) {
        self.source = source
        self.selector = selector
        subscribeSink = { producer, observer in
            let sink = TraitFlatMapSink(selector: producer.selector, downstream: observer)
            sink.traitAttach(producer.source.run(AnyObserver { sink.on($0) }))
            return sink
        }
        super.init()
    }

    @inlinable
    override func run(_ observer: AnyObserver<Result>) -> Disposable {
        subscribeSink(self, observer)
    }
}

/// `flatMap` for traits over a `TraitScalarProducer` (see there): the selector is applied
/// in place to the source's element. An inner sequence that is itself a scalar is played
/// in place too, with no subscription at all; any other is subscribed through a
/// `TraitFlatMapSink` told of the source's element and completion, as the source would
/// have told it.
@usableFromInline
final class TraitScalarFlatMapProducer<Source, InnerTrait, Result>: Observable<Result>, @unchecked Sendable {
    // Sendable: immutable (every field a `let`; the selector is `@Sendable`).
    @usableFromInline let source: TraitScalarProducer<Source>
    @usableFromInline let selector: @Sendable (Source) throws -> PrimitiveSequence<InnerTrait, Result>
    @usableFromInline let subscribeInner:
        (TraitScalarFlatMapProducer<Source, InnerTrait, Result>, AnyObserver<Result>) -> Disposable

    @inlinable
    init(
        source: TraitScalarProducer<Source>,
        selector: @escaping @Sendable (Source) throws -> PrimitiveSequence<InnerTrait, Result>
    ) {
        self.source = source
        self.selector = selector
        subscribeInner = { producer, observer in
            let sequence: PrimitiveSequence<InnerTrait, Result>
            do {
                sequence = try producer.selector(try producer.source.scalar(producer.source))
            } catch {
                observer.on(.error(error))
                return NopDisposable()
            }
            if sequence.source.isTraitScalar {
                let inner = unsafeDowncast(sequence.source, to: TraitScalarProducer<Result>.self)
                // On the trampoline if none runs, as `traitSubscribeInner` would have.
                CurrentThreadScheduler.withTrampoline { inner.emit(inner, observer) }
                return NopDisposable()
            }
            // As `TraitFlatMapSink.on` would have done with the element, then the source's
            // completion.
            let sink = TraitFlatMapSink(selector: producer.selector, downstream: observer)
            _ = sink.progress.fetchOr(1)
            sink.startInner(sequence)
            sink.on(.completed)
            return sink
        }
        super.init()
    }

    @inlinable
    override func run(_ observer: AnyObserver<Result>) -> Disposable {
        subscribeInner(self, observer)
    }
}

/// One subscription of a trait `flatMap`.
///
/// The source has at most one element, so there is at most one inner subscription. It
/// completes once both the source and the inner sequence (if any) have completed. The
/// inner disposable is handed over with the same atomic protocol as `SubscriptionCore`'s
/// upstream: whoever sees both "stored" and "disposed" disposes it. The inner sequence's
/// completion asks for its disposal too, as RxSwift's `flatMap` releases a finished inner
/// sequence at once.
@usableFromInline
final class TraitFlatMapSink<Source, InnerTrait, Result>: Sink<Result>, @unchecked Sendable {
    @usableFromInline let selector: @Sendable (Source) throws -> PrimitiveSequence<InnerTrait, Result>
    /// Bits: 1 inner started, 2 source completed, 4 inner completed, 8 inner disposable
    /// stored, 16 inner must be disposed.
    @usableFromInline let progress = AtomicInt(0)
    @usableFromInline var inner: Disposable?

    @inlinable
    init(
        selector: @escaping @Sendable (Source) throws -> PrimitiveSequence<InnerTrait, Result>,
        downstream: AnyObserver<Result>
    ) {
        self.selector = selector
        super.init(downstream: downstream)
    }

    @inlinable
    func on(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            // A trait has at most one element; anything after the first is ignored.
            guard !isStoppedOrDisposed, progress.fetchOr(1) & 1 == 0 else { return }
            let sequence: PrimitiveSequence<InnerTrait, Result>
            do {
                sequence = try selector(element)
            } catch {
                forwardTerminal(.error(error))
                return
            }
            startInner(sequence)
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            let previous = progress.fetchOr(2)
            if previous & 1 == 0 || previous & 4 != 0 { forwardTerminal(.completed) }
        }
    }

    /// Subscribes the inner sequence made from the source's element (bit 1 already set).
    @inlinable
    func startInner(_ sequence: PrimitiveSequence<InnerTrait, Result>) {
        storeInner(sequence.source.traitSubscribeInner(AnyObserver { self.onInner($0) }))
    }

    @inlinable
    func onInner(_ event: Event<Result>) {
        switch event {
        case .next:
            // Bit 4: the inner sequence completed; what it sends after that is dropped.
            if progress.load() & 4 == 0 { forward(event) }
        case .error:
            forwardTerminal(event)
        case .completed:
            let previous = progress.fetchOr(4 | 16)
            if previous & 24 == 8 { releaseInner() }
            if previous & 2 != 0 { forwardTerminal(.completed) }
        }
    }

    @inlinable
    func storeInner(_ disposable: Disposable) {
        // An inner sequence that already finished (the usual case for `just`), or a sink
        // already disposed: nothing to keep.
        if progress.load() & 16 != 0 {
            disposable.dispose()
            return
        }
        inner = disposable
        if progress.fetchOr(8) & 16 != 0 {
            inner = nil
            disposable.dispose()
        }
    }

    /// Disposes the stored inner subscription; called by whoever set bit 16 while bit 8
    /// was set, so once.
    @inlinable
    func releaseInner() {
        let disposable = inner
        inner = nil
        disposable?.dispose()
    }

    @usableFromInline
    override func didDispose() {
        if progress.fetchOr(16) & 24 == 8 { releaseInner() }
    }
}

/// `compactMap` for traits: the transformed element, or nothing when it is `nil`.
final class TraitCompactMapSink<Source, Result>: Sink<Result>, @unchecked Sendable {
    private let transform: @Sendable (Source) throws -> Result?

    init(transform: @escaping @Sendable (Source) throws -> Result?, downstream: AnyObserver<Result>) {
        self.transform = transform
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            do {
                if let result = try transform(element) { forward(.next(result)) }
            } catch {
                forwardTerminal(.error(error))
            }
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            forwardTerminal(.completed)
        }
    }
}

extension Observable {
    /// `compactMap` over the trait sink (the `Observable` operator is not ours to write).
    static func traitCompactMap<Source>(
        _ source: Observable<Source>, _ transform: @escaping @Sendable (Source) throws -> Element?
    ) -> Observable<Element> {
        make { observer in
            let sink = TraitCompactMapSink(transform: transform, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// Subscribes an inner sequence, exactly as `subscribe(_:)` does (on the trampoline if
    /// none runs on this thread) but without its generic observer conversion.
    @inlinable
    func traitSubscribeInner(_ observer: AnyObserver<Element>) -> Disposable {
        return CurrentThreadScheduler.withTrampoline { run(observer) }
    }

    /// Subscribes `observer` through `sink`, on the trampoline if none runs on this
    /// thread, as `ObservableType.subscribe(onNext:…)` does.
    // Always inlined: called out of line, the caller retains the sink and observer for the
    // call (callgrind, `single_chain`: about 110 instructions more per subscription).
    @inlinable @inline(__always)
    func traitSubscribe<Core: SubscriptionCore>(_ sink: Core, observer: AnyObserver<Element>) -> Disposable {
        CurrentThreadScheduler.withTrampoline { sink.traitAttach(run(observer)) }
        return sink
    }
}

extension SubscriptionCore {
    /// `attach(_:)`, with a shortcut for the usual case of a trait that finished
    /// synchronously: when this subscription is already disposed, the disposing thread saw
    /// no upstream attached and will never touch it, so the upstream is disposed at once
    /// without being stored.
    @inlinable
    final func traitAttach(_ disposable: Disposable) {
        if isDisposed {
            disposable.dispose()
        } else {
            attach(disposable)
        }
    }
}

/// Reports an error that reached a trait subscription without an error handler.
@usableFromInline
func traitReportUnhandled(_ error: Swift.Error, to handler: ((Swift.Error) -> Void)?) {
    if let handler {
        handler(error)
    } else {
        Hooks.defaultErrorHandler([], error)
    }
}
