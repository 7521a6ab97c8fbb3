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
        let sink = SubscribeSink(onDisposed: onDisposed)
        let onError = Hooks.subscriptionErrorHandler(onError)
        // The handlers are captured by the observer, not stored in the sink: the upstream
        // holds the observer and lets go of it once the subscription ends, which releases
        // the handlers (and what they capture) even while the app still holds the
        // returned disposable. Captured constants are also read without a retain and
        // release per event, where a stored, clearable property is not.
        let observer = AnyObserver<Element> { event in
            switch event {
            case .next(let element):
                if !sink.isDisposed { onNext?(element) }
            case .error(let error):
                let previous = sink.state.fetchOr(1)
                guard previous & 1 == 0 else { return }
                if let onError {
                    onError(error)
                } else {
                    Hooks.defaultErrorHandler([], error)
                }
                sink.finishDisposal(previousState: previous)
            case .completed:
                let previous = sink.state.fetchOr(1)
                guard previous & 1 == 0 else { return }
                onCompleted?()
                sink.finishDisposal(previousState: previous)
            }
        }
        let source = asObservable()
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

/// The subscription a `subscribe(onNext:…)` returns: the disposed flag, the upstream, and
/// `onDisposed` (immutable, since `dispose()` may run on any thread).
///
/// The element handlers are not here but in the observer handed upstream (see
/// `subscribe(onNext:onError:onCompleted:onDisposed:)`), so a finished subscription that
/// the app still holds (in a bag, or in an object its handlers capture) does not keep
/// them, and what they capture, alive.
@usableFromInline
final class SubscribeSink: SubscriptionCore, @unchecked Sendable {
    @usableFromInline let onDisposed: (() -> Void)?

    @inlinable
    init(onDisposed: (() -> Void)?) {
        self.onDisposed = onDisposed
        super.init()
    }

    @usableFromInline
    override func didDispose() {
        onDisposed?()
    }
}
