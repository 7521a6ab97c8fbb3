/// The disposal state shared by every per-subscription object: a disposed flag and the
/// upstream subscription, which may arrive after the object was already disposed.
///
/// State bits: 1 = disposed, 2 = upstream attached, 4 = stopped (a terminal event went
/// out). Only the thread that sets the disposed bit while the attached bit is set (or
/// the attaching thread, if the disposed bit came first) touches `upstream` afterwards,
/// so the atomic read-modify-writes order every access to it.
///
/// The upstream is kept as one class reference: nearly every upstream is another
/// subscription object (a sink, a subject's subscription), and a `Disposable?`
/// existential would take 40 bytes per object and value-witness calls to copy, test and
/// destroy. Other disposables are boxed when attached (`DisposableBox`); the do-nothing one
/// is not kept at all.
@usableFromInline
class SubscriptionCore: RxResource, Cancelable, @unchecked Sendable {
    @usableFromInline let state = AtomicInt(0)
    // Accesses are ordered by the atomic protocol above, so dynamic exclusivity checks
    // would only cost time on every subscription.
    @exclusivity(unchecked) @usableFromInline var upstream: SubscriptionCore?

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
        // A class-to-class cast (no existential one): only `SubscriptionCore` is meant to
        // return an object, but a disposable outside Rx that does is simply boxed.
        if let core = disposable._rxSubscription as? SubscriptionCore {
            attachCore(core)
        } else if type(of: disposable) != NopDisposable.self {
            attachCore(DisposableBox(disposable))
        }
    }

    /// This object: it is one of Rx's own subscription objects.
    @inlinable
    final var _rxSubscription: AnyObject? { self }

    /// `attach` for an upstream known to be a subscription object.
    @inlinable
    final func attachCore(_ core: SubscriptionCore) {
        upstream = core
        let previous = state.fetchOr(2)
        if previous & 1 != 0 {
            upstream = nil
            core.dispose()
        }
    }

    /// Disposes this subscription and its upstream; only the first call acts.
    @inlinable
    final func dispose() {
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

/// An upstream disposable that is not a subscription object, kept by `SubscriptionCore`.
@usableFromInline
final class DisposableBox: SubscriptionCore, @unchecked Sendable {
    // Sendable: immutable; disposed once, by `SubscriptionCore`'s protocol.
    @usableFromInline let wrapped: Disposable

    @inlinable
    init(_ wrapped: Disposable) {
        self.wrapped = wrapped
        super.init()
    }

    @usableFromInline
    override func didDispose() {
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
