/// A push-based sequence of elements.
///
/// `Observable` is the class every operator returns. Subclasses inside `Rx` implement
/// `run(_:)`; users build observables with `Observable.create` and the operators.
///
/// `Sendable`: an observable is an immutable description of work; subscribing may
/// happen on any thread.
public class Observable<Element>: ObservableType, @unchecked Sendable {
    // Every observable counts in `Resources.total` (debug builds), as in RxSwift, so a
    // leak check also catches an operator that keeps its source alive.
    @inlinable
    init() {
        Resources.incrementTotal()
    }

    @inlinable
    deinit {
        Resources.decrementTotal()
    }

    /// Subscribes `observer` to the sequence.
    ///
    /// If no subscription is in progress on this thread, the subscription runs on the
    /// current-thread trampoline: synchronous sources deeper in the chain start emitting
    /// only once every operator in the chain is wired up, so that disposing from inside
    /// a handler stops them.
    @inlinable
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let anyObserver = AnyObserver(observer)
        return CurrentThreadScheduler.withTrampoline { run(anyObserver) }
    }

    /// Starts the work of the sequence for `observer`. Overridden by every producer.
    @usableFromInline
    func run(_ observer: AnyObserver<Element>) -> Disposable {
        observer.on(.completed)
        return Disposables.create()
    }

    /// This observable.
    @inlinable
    public func asObservable() -> Observable<Element> { self }

    /// Whether this is a `JustProducer`, for operators that fuse with `just` (`map`).
    ///
    /// A method rather than a cast: where the optimiser knows the producer (as in
    /// `Observable.just(x).map(f)`), it devirtualises the call and folds the branch, which a
    /// cast of the stored source it does not, and the producers then stay on the stack.
    /// Elsewhere it costs one virtual call returning a `Bool`.
    @inlinable
    var isJust: Bool { false }

    /// Whether this is a `TraitScalarProducer`, which trait operators fuse with; a method
    /// rather than a cast for the same reasons as `isJust`.
    @inlinable
    var isTraitScalar: Bool { false }

    /// An observable whose subscription runs `subscribe`, without the guard that
    /// `Observable.create` adds: internal operators ensure the grammar themselves.
    @inlinable
    static func make(_ subscribe: @escaping @Sendable (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        ClosureProducer(subscribe)
    }
}

extension Observable {
    /// An observable that keeps `state` inline and subscribes with a closure that captures
    /// nothing: one allocation per operator application instead of two (the closure's
    /// context). Used by the hot operators.
    @inlinable
    static func make<State>(
        state: State, _ subscribe: @escaping @Sendable (State, AnyObserver<Element>) -> Disposable
    ) -> Observable<Element> {
        StatefulProducer(state: UncheckedSendable(state), subscribe)
    }
}

/// An observable holding its state inline next to a capture-free subscribe function.
@usableFromInline
final class StatefulProducer<Element, State>: Observable<Element>, @unchecked Sendable {
    // Sendable: immutable; the state is what the operator captured (observables and
    // `@Sendable` closures).
    @usableFromInline let state: UncheckedSendable<State>
    @usableFromInline let subscribeHandler: @Sendable (State, AnyObserver<Element>) -> Disposable

    @inlinable
    init(
        state: UncheckedSendable<State>,
        _ subscribeHandler: @escaping @Sendable (State, AnyObserver<Element>) -> Disposable
    ) {
        self.state = state
        self.subscribeHandler = subscribeHandler
        super.init()
    }

    @inlinable
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        subscribeHandler(state.value, observer)
    }
}

/// An observable of one element.
@usableFromInline
final class JustProducer<Element>: Observable<Element>, @unchecked Sendable {
    // Sendable: immutable.
    @usableFromInline let element: Element

    @inlinable
    init(_ element: Element) {
        self.element = element
        super.init()
    }

    @inlinable
    override var isJust: Bool { true }

    @inlinable
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        observer.on(.next(element))
        observer.on(.completed)
        return NopDisposable()
    }
}

/// An observable whose subscription runs a closure.
@usableFromInline
final class ClosureProducer<Element>: Observable<Element>, @unchecked Sendable {
    @usableFromInline let subscribeHandler: @Sendable (AnyObserver<Element>) -> Disposable

    @inlinable
    init(_ subscribeHandler: @escaping @Sendable (AnyObserver<Element>) -> Disposable) {
        self.subscribeHandler = subscribeHandler
        super.init()
    }

    @inlinable
    override func run(_ observer: AnyObserver<Element>) -> Disposable {
        subscribeHandler(observer)
    }
}
