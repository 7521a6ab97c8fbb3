extension ObservableType {
    /// Runs side effects for the events and the lifetime of each subscription, and passes
    /// every event through.
    ///
    /// For each event, the `on…` handler runs before the event goes downstream and the
    /// `after…` handler after it. An error thrown by a handler ends the sequence with that
    /// error (an error thrown by `afterError` or `afterCompleted`, which run after the
    /// terminal event went out, is dropped). Order of the subscription hooks: `onSubscribe`,
    /// subscription to the source, `onSubscribed`; `onDispose` runs once, after the source
    /// subscription was disposed, whether the sequence ended or was disposed (and never
    /// before `onSubscribed`).
    ///
    /// - Parameters:
    ///   - onNext: Runs for each element, before it goes downstream.
    ///   - afterNext: Runs for each element, after it went downstream.
    ///   - onError: Runs for an error, before it goes downstream.
    ///   - afterError: Runs for an error, after it went downstream.
    ///   - onCompleted: Runs on completion, before it goes downstream.
    ///   - afterCompleted: Runs on completion, after it went downstream.
    ///   - onSubscribe: Runs before subscribing to the source.
    ///   - onSubscribed: Runs after subscribing to the source.
    ///   - onDispose: Runs after the source subscription was disposed, for any reason.
    /// - Returns: The source, with the side effects.
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
    ) -> Observable<Element> {
        let source = asObservable()
        let hooks = DoHooks(
            onNext: onNext, afterNext: afterNext, onError: onError, afterError: afterError, onCompleted: onCompleted,
            afterCompleted: afterCompleted, onDispose: onDispose)
        return Observable<Element>.make { observer in
            onSubscribe?()
            let sink = DoSink(hooks: hooks, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            onSubscribed?()
            sink.subscriptionDidFinish()
            return sink
        }
    }
}

/// The event hooks of one `do` operator, shared by its subscriptions.
struct DoHooks<Element>: Sendable {
    let onNext: (@Sendable (Element) throws -> Void)?
    let afterNext: (@Sendable (Element) throws -> Void)?
    let onError: (@Sendable (Swift.Error) throws -> Void)?
    let afterError: (@Sendable (Swift.Error) throws -> Void)?
    let onCompleted: (@Sendable () throws -> Void)?
    let afterCompleted: (@Sendable () throws -> Void)?
    let onDispose: (@Sendable () -> Void)?
}

/// The sink of `do`.
final class DoSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the hooks are immutable; the only mutable state is the atomic below.
    private let hooks: DoHooks<Element>
    /// 1 = subscription finished (`onSubscribed` ran), 2 = disposed. `onDispose` runs
    /// when both are set, once.
    private let lifecycle = AtomicInt(0)

    init(hooks: DoHooks<Element>, downstream: AnyObserver<Element>) {
        self.hooks = hooks
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        guard !isStoppedOrDisposed else { return }
        switch event {
        case .next(let element):
            do {
                try hooks.onNext?(element)
                forward(event)
                try hooks.afterNext?(element)
            } catch {
                forwardTerminal(.error(error))
            }
        case .error(let error):
            do {
                try hooks.onError?(error)
            } catch {
                forwardTerminal(.error(error))
                return
            }
            deliverTerminal(event) { try self.hooks.afterError?(error) }
        case .completed:
            do {
                try hooks.onCompleted?()
            } catch {
                forwardTerminal(.error(error))
                return
            }
            deliverTerminal(event) { try self.hooks.afterCompleted?() }
        }
    }

    /// `forwardTerminal`, with the `after…` hook between the delivery and the disposal.
    private func deliverTerminal(_ event: Event<Element>, after: () throws -> Void) {
        let previous = state.fetchOr(4)
        guard previous & 5 == 0 else { return }
        downstream.on(event)
        // The terminal event is out: an error thrown now has nowhere to go.
        try? after()
        dispose()
    }

    /// Called after `onSubscribed`: a disposal that happened during the subscription runs
    /// `onDispose` now.
    func subscriptionDidFinish() {
        if lifecycle.fetchOr(1) == 2 { hooks.onDispose?() }
    }

    override func didDispose() {
        if lifecycle.fetchOr(2) == 1 { hooks.onDispose?() }
    }
}
