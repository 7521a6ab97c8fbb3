extension ObservableType {
    /// Subscribes with handlers for each kind of event.
    ///
    /// The handlers are not `@Sendable`: they run on whichever thread the sequence
    /// delivers on (see `observe(on:)`), one event at a time. A terminal event disposes
    /// the subscription; `onDisposed` runs once, after `onError`/`onCompleted` or on
    /// `dispose()`. An error with no `onError` goes to `Hooks.defaultErrorHandler`, with the
    /// call stack of this `subscribe` if `Hooks.recordCallStackOnError` is on.
    ///
    /// - Returns: A disposable that cancels the subscription.
    @inlinable
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((Swift.Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let sink = SubscribeSink<Element>(
            onNext: onNext, onError: Hooks.subscriptionErrorHandler(onError), onCompleted: onCompleted,
            onDisposed: onDisposed)
        let source = asObservable()
        let observer = AnyObserver<Element> { sink.on($0) }
        if CurrentThreadScheduler.isScheduleRequired {
            CurrentThreadScheduler.runTrampolined { sink.attach(source.run(observer)) }
        } else {
            sink.attach(source.run(observer))
        }
        return sink
    }

    /// Subscribes with one handler for every event.
    public func subscribe(_ on: @escaping (Event<Element>) -> Void) -> Disposable {
        subscribe(
            onNext: { on(.next($0)) },
            onError: { on(.error($0)) },
            onCompleted: { on(.completed) })
    }

    /// Subscribes with handlers that receive `object` while it is alive; events that
    /// arrive after `object` was freed are ignored. Nothing retains `object`.
    public func subscribe<Object: AnyObject>(
        with object: Object,
        onNext: ((Object, Element) -> Void)? = nil,
        onError: ((Object, Swift.Error) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onNext: { [weak object] element in
                guard let object else { return }
                onNext?(object, element)
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

/// The end of a `subscribe(onNext:…)` chain: calls the user's handlers.
///
/// The element handlers are released as soon as a terminal event has been handled, so
/// that a finished subscription which the app still holds (in a bag, or in an object its
/// handlers capture) does not keep them, and what they capture, alive. Only the event
/// path touches them, and events are serial, so no lock is needed; `onDisposed` is
/// immutable because `dispose()` may run on any thread.
@usableFromInline
final class SubscribeSink<Element>: SubscriptionCore, @unchecked Sendable {
    @usableFromInline
    struct Handlers {
        @usableFromInline let onNext: ((Element) -> Void)?
        @usableFromInline let onError: ((Swift.Error) -> Void)?
        @usableFromInline let onCompleted: (() -> Void)?

        @inlinable
        init(onNext: ((Element) -> Void)?, onError: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?) {
            self.onNext = onNext
            self.onError = onError
            self.onCompleted = onCompleted
        }
    }

    // Read and cleared only on the (serial) event path; see the type's comment.
    @exclusivity(unchecked) @usableFromInline var handlers: Handlers?
    @usableFromInline let onDisposed: (() -> Void)?

    @inlinable
    init(
        onNext: ((Element) -> Void)?, onError: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?,
        onDisposed: (() -> Void)?
    ) {
        self.handlers = Handlers(onNext: onNext, onError: onError, onCompleted: onCompleted)
        self.onDisposed = onDisposed
        super.init()
    }

    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            if state.load() & 1 == 0 { handlers?.onNext?(element) }
        case .error(let error):
            let previous = state.fetchOr(1)
            guard previous & 1 == 0 else { return }
            let handlers = self.handlers
            self.handlers = nil
            if let onError = handlers?.onError {
                onError(error)
            } else {
                Hooks.defaultErrorHandler([], error)
            }
            finishDisposal(previousState: previous)
        case .completed:
            let previous = state.fetchOr(1)
            guard previous & 1 == 0 else { return }
            let handlers = self.handlers
            self.handlers = nil
            handlers?.onCompleted?()
            finishDisposal(previousState: previous)
        }
    }

    @usableFromInline
    override func didDispose() {
        onDisposed?()
    }
}
