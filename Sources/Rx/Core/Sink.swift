/// The base of Rx's own subscription objects: what an operator keeps as its upstream, as
/// one class reference disposed through the vtable.
///
/// Nearly every upstream is one of these (a sink, a subject's subscription); a
/// `Disposable?` existential instead would take 40 bytes per object and value-witness
/// calls to copy, test and destroy. Other disposables are boxed when attached
/// (`DisposableBox`); the do-nothing one is not kept at all.
@usableFromInline
class SubscriptionBase: RxResource, Disposable, @unchecked Sendable {
    // Sendable: no stored state; each subclass says what makes its own state safe.
    @inlinable
    override init() {
        super.init()
    }

    /// Releases the subscription; overridden by every subclass.
    @usableFromInline
    func dispose() {}

    /// This object: it is one of Rx's own subscription objects.
    @inlinable
    final var _rxSubscription: AnyObject? { self }
}

/// The disposal state shared by every per-subscription operator object: a disposed flag
/// and the upstream subscription, which may arrive after the object was already disposed.
///
/// State bits: 1 = disposed, 2 = upstream attached, 4 = stopped (a terminal event went
/// out). Only the thread that sets the disposed bit while the attached bit is set (or
/// the attaching thread, if the disposed bit came first) touches `upstream` afterwards,
/// so the atomic read-modify-writes order every access to it.
@usableFromInline
class SubscriptionCore: SubscriptionBase, Cancelable, @unchecked Sendable {
    // Sendable: `state` is atomic, and `upstream` is touched only as the state protocol
    // above allows.
    @usableFromInline let state = AtomicInt(0)
    // Accesses are ordered by the atomic protocol above, so dynamic exclusivity checks
    // would only cost time on every subscription.
    @exclusivity(unchecked) @usableFromInline var upstream: SubscriptionBase?

    @inlinable
    override init() {
        super.init()
    }

    /// Whether this subscription has been disposed.
    @inlinable
    final var isDisposed: Bool { state.load() & 1 != 0 }

    /// Stores the upstream subscription; disposes it at once if this one is already
    /// disposed.
    @inlinable
    final func attach(_ disposable: Disposable) {
        // A class-to-class cast (no existential one): only `SubscriptionBase` is meant to
        // return an object, but a disposable outside Rx that does is simply boxed.
        if let subscription = disposable._rxSubscription as? SubscriptionBase {
            attachSubscription(subscription)
        } else if type(of: disposable) != NopDisposable.self {
            attachSubscription(DisposableBox(disposable))
        }
    }

    /// `attach` for an upstream known to be one of Rx's subscription objects.
    @inlinable
    final func attachSubscription(_ subscription: SubscriptionBase) {
        upstream = subscription
        let previous = state.fetchOr(2)
        if previous & 1 != 0 {
            upstream = nil
            subscription.dispose()
        }
    }

    /// Disposes this subscription and its upstream; only the first call acts.
    @inlinable
    final override func dispose() {
        let previous = state.fetchOr(1)
        guard previous & 1 == 0 else { return }
        finishDisposal(previousState: previous)
    }

    /// Completes a disposal whose bit the caller has just set.
    @inlinable
    final func finishDisposal(previousState: Int) {
        if previousState & 2 != 0 {
            let disposable = upstream
            upstream = nil
            disposable?.dispose()
        }
        didDispose()
    }

    /// Called once, after the upstream was disposed. Subclasses release their own
    /// resources here.
    @usableFromInline
    func didDispose() {}
}

/// An upstream disposable that is not one of Rx's subscription objects, as
/// `SubscriptionCore` keeps it; its owner disposes it once.
@usableFromInline
final class DisposableBox: SubscriptionBase, @unchecked Sendable {
    // Sendable: immutable.
    @usableFromInline let wrapped: Disposable

    @inlinable
    init(_ wrapped: Disposable) {
        self.wrapped = wrapped
        super.init()
    }

    @usableFromInline
    override func dispose() {
        wrapped.dispose()
    }
}

/// A per-subscription operator object that forwards events downstream.
///
/// `forward` drops events once the sink is stopped or disposed; `forwardTerminal` lets
/// exactly one terminal event through and then disposes the sink (a terminal event
/// disposes upstream).
@usableFromInline
class Sink<Output>: SubscriptionCore, @unchecked Sendable {
    @usableFromInline let downstream: AnyObserver<Output>

    @inlinable
    init(downstream: AnyObserver<Output>) {
        self.downstream = downstream
        super.init()
    }

    /// Forwards an element unless the sink is stopped or disposed.
    @inlinable
    final func forward(_ event: Event<Output>) {
        if state.load() & 5 == 0 {
            downstream.on(event)
        }
    }

    /// Forwards a terminal event (only the first one), then disposes the sink.
    @inlinable
    final func forwardTerminal(_ event: Event<Output>) {
        let previous = state.fetchOr(4)
        guard previous & 5 == 0 else { return }
        downstream.on(event)
        dispose()
    }

    /// Forwards `event`, routing terminal events through `forwardTerminal`.
    @inlinable
    final func forwardEvent(_ event: Event<Output>) {
        if event.isStopEvent {
            forwardTerminal(event)
        } else {
            forward(event)
        }
    }

    /// Whether a terminal event has gone out or the sink was disposed.
    @inlinable
    final var isStoppedOrDisposed: Bool { state.load() & 5 != 0 }
}

/// The end of one upstream source of an operator that moves on from a source after its
/// terminal event (catch, retry, concat).
///
/// The sink's own stopped bit cannot say that a source is over, because the source's
/// terminal event does not end the sink; a source that breaks the grammar may send more
/// events after it, and those must neither reach downstream nor be taken for the end of
/// the source that replaced it.
@usableFromInline
final class SourceGate: Sendable {
    @usableFromInline let state = AtomicInt(0)

    @inlinable
    init() {}

    /// Whether the source's terminal event has not been handled yet.
    @inlinable
    var isOpen: Bool { state.load() == 0 }

    /// Closes the gate for the source's terminal event; `true` only for the first call,
    /// which alone may act on it.
    @inlinable
    func close() -> Bool { state.exchange(1) == 0 }
}
