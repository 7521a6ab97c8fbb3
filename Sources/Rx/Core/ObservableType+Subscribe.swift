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
        let onError = Hooks.subscriptionErrorHandler(onError)
        let sink = SubscribeSink(onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
        // `onNext` is captured by the observer, not stored in the sink: the upstream holds
        // the observer and lets go of it once the subscription ends, which releases the
        // handler (and what it captures) even while the app still holds the returned
        // disposable. A captured constant is also read without a retain and release per
        // element, where a stored, clearable property is not.
        let observer = AnyObserver<Element> { event in
            switch event {
            case .next(let element):
                if !sink.isDisposed { onNext?(element) }
            case .error(let error):
                sink.terminate(with: error)
            case .completed:
                sink.terminate(with: nil)
            }
        }
        let source = asObservable()
        // `traitAttach`: a source that ended during `run` (`just`, `from` on a running
        // trampoline…) has already disposed the sink, and its subscription is disposed at
        // once instead of being stored.
        CurrentThreadScheduler.withTrampoline { sink.traitAttach(source.run(observer)) }
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

/// The subscription a `subscribe(onNext:…)` returns: the disposed flag, the upstream, and
/// the terminal handlers.
///
/// `onNext` is not here but in the observer handed upstream (see
/// `subscribe(onNext:onError:onCompleted:onDisposed:)`). The other three handlers, only
/// read once, live in a `SubscribeTerminalHandlers` allocated only when one is given (a
/// bare `subscribe(onNext:)` is the common case); the error and completion handlers are
/// released by the terminal event, so that a finished subscription the app still holds
/// (in a bag, or in an object its handlers capture) does not keep them, and what they
/// capture, alive; `dispose()` releases all three.
@usableFromInline
final class SubscribeSink: SubscriptionCore, @unchecked Sendable {
    // Sendable: besides `SubscriptionCore`'s atomic state, only the handlers box, which the
    // disposing thread alone touches (below).
    // Only the thread that sets the disposed bit (a terminal event, or `dispose()`) reads
    // and clears the handlers: see `terminate(with:)` and `didDispose()`.
    @usableFromInline let handlers: SubscribeTerminalHandlers?

    @inlinable
    init(onError: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?, onDisposed: (() -> Void)?) {
        if onError == nil && onCompleted == nil && onDisposed == nil {
            handlers = nil
        } else {
            handlers = SubscribeTerminalHandlers(onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
        }
        super.init()
    }

    /// Handles the terminal event (an error, or completion when `error` is nil): the
    /// first one runs its handler and disposes the subscription; later ones, or one after
    /// `dispose()`, are ignored.
    @inlinable
    func terminate(with error: Swift.Error?) {
        let previous = state.fetchOr(1)
        guard previous & 1 == 0 else { return }
        // Moved out (`take()`), not copied: no retain and release to call them.
        let onError = handlers?.onError.take()
        let onCompleted = handlers?.onCompleted.take()
        if let error {
            if let onError {
                onError(error)
            } else {
                Hooks.defaultErrorHandler([], error)
            }
        } else {
            onCompleted?()
        }
        finishDisposal(previousState: previous)
    }

    @usableFromInline
    override func didDispose() {
        // Runs once, on the thread that set the disposed bit, which alone touches the
        // handlers from then on (the event path reads them only after setting it itself).
        guard let handlers else { return }
        handlers.onError = nil
        handlers.onCompleted = nil
        let onDisposed = handlers.onDisposed.take()
        onDisposed?()
    }
}

/// The handlers of a `subscribe` that only its end reads (see `SubscribeSink`).
@usableFromInline
final class SubscribeTerminalHandlers {
    // Touched only by the thread that disposed the subscription; see `SubscribeSink`.
    @exclusivity(unchecked) @usableFromInline var onError: ((Swift.Error) -> Void)?
    @exclusivity(unchecked) @usableFromInline var onCompleted: (() -> Void)?
    @exclusivity(unchecked) @usableFromInline var onDisposed: (() -> Void)?

    @inlinable
    init(onError: ((Swift.Error) -> Void)?, onCompleted: (() -> Void)?, onDisposed: (() -> Void)?) {
        self.onError = onError
        self.onCompleted = onCompleted
        self.onDisposed = onDisposed
    }
}
