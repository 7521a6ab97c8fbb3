import Foundation

extension ObservableType {
    /// Subscribes handlers isolated to the main actor: each event is delivered on the main
    /// thread, in order, through `MainScheduler.instance`.
    ///
    /// This is the checked way for `@MainActor` code (view models, views) to observe a
    /// sequence that emits on any thread. An event emitted on the main thread while no
    /// earlier event is waiting is handled at once; others are queued on the main queue.
    /// Despite the name, the *subscription* happens on the calling thread, as with
    /// `subscribe`; only the handlers hop (`subscribe(on:)` is something else).
    ///
    /// Events still queued when the subscription is disposed are dropped. `onDisposed`
    /// runs on the main thread too: at once if disposed there, otherwise soon after.
    ///
    /// ```swift
    /// @MainActor final class ProfileViewModel {
    ///     var name = ""
    ///     func bind(to user: Observable<User>) -> Disposable {
    ///         user.subscribeOnMain(onNext: { [weak self] in self?.name = $0.name })
    ///     }
    /// }
    /// ```
    ///
    /// - Returns: A disposable that cancels the subscription.
    public func subscribeOnMain(
        onNext: (@MainActor (Element) -> Void)? = nil,
        onError: (@MainActor (Swift.Error) -> Void)? = nil,
        onCompleted: (@MainActor () -> Void)? = nil,
        onDisposed: (@MainActor () -> Void)? = nil
    ) -> Disposable {
        // As `subscribe` does: without an error handler, the call stack of this subscription
        // goes to `Hooks.defaultErrorHandler` when `Hooks.recordCallStackOnError` is on.
        let callStack =
            onError == nil && Hooks.recordCallStackOnError ? Hooks.customCaptureSubscriptionCallstack() : []
        let sink = MainActorSubscribeSink<Element>(
            onNext: onNext, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed,
            subscriptionCallStack: callStack)
        sink.attach(asObservable().subscribe(AnyObserver { sink.on($0) }))
        return sink
    }
}

/// The end of a `subscribeOnMain` chain: hops each event to the main thread and calls the
/// main-actor handlers there.
///
/// The handlers are released once the subscription ends (its terminal event, or
/// `dispose()`), as `subscribe` releases its own: an app that keeps the disposable in a bag
/// owned by the object its handlers capture would otherwise keep that object alive.
final class MainActorSubscribeSink<Element>: SubscriptionCore, @unchecked Sendable {
    // Sendable: the handlers are touched on the main thread only (see `MainThreadHandlers`);
    // the other mutable state is the atomic in `SubscriptionCore`.
    private let handlers: MainThreadHandlers<Element>
    /// For `Hooks.defaultErrorHandler` when there is no `onError`.
    private let subscriptionCallStack: [String]

    init(
        onNext: (@MainActor (Element) -> Void)?, onError: (@MainActor (Swift.Error) -> Void)?,
        onCompleted: (@MainActor () -> Void)?, onDisposed: (@MainActor () -> Void)?,
        subscriptionCallStack: [String]
    ) {
        handlers = MainThreadHandlers(
            onNext: onNext, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
        self.subscriptionCallStack = subscriptionCallStack
        super.init()
    }

    func on(_ event: Event<Element>) {
        guard !isDisposed else { return }
        // The event crosses to the main thread; the Rx contract (serial delivery, handed
        // over once) is what makes that safe for a non-Sendable element.
        let box = UncheckedSendable(event)
        _ = MainScheduler.instance.schedule(self) { sink in
            sink.deliverOnMainThread(box.value)
            return Disposables.create()
        }
    }

    /// Called on the main thread (by `MainScheduler.instance`).
    private func deliverOnMainThread(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isDisposed, let onNext = handlers.onNext else { return }
            let box = UncheckedSendable(element)
            MainActor.assumeIsolated { onNext(box.value) }
        case .error(let error):
            let previous = state.fetchOr(1)
            guard previous & 1 == 0 else { return }
            if let onError = handlers.onError {
                MainActor.assumeIsolated { onError(error) }
            } else {
                Hooks.defaultErrorHandler(subscriptionCallStack, error)
            }
            finishDisposal(previousState: previous)
        case .completed:
            let previous = state.fetchOr(1)
            guard previous & 1 == 0 else { return }
            if let onCompleted = handlers.onCompleted {
                MainActor.assumeIsolated { onCompleted() }
            }
            finishDisposal(previousState: previous)
        }
    }

    override func didDispose() {
        let handlers = self.handlers
        if Thread.isMainThread {
            handlers.finish()
        } else {
            DispatchQueue.main.async { handlers.finish() }
        }
    }
}

/// The handlers of a `subscribeOnMain`, read and released on the main thread only.
private final class MainThreadHandlers<Element>: @unchecked Sendable {
    // @unchecked: every access happens on the main thread (deliveries hop there through
    // `MainScheduler.instance`, and `finish()` is called or queued there).
    var onNext: (@MainActor (Element) -> Void)?
    var onError: (@MainActor (Swift.Error) -> Void)?
    var onCompleted: (@MainActor () -> Void)?
    var onDisposed: (@MainActor () -> Void)?

    init(
        onNext: (@MainActor (Element) -> Void)?, onError: (@MainActor (Swift.Error) -> Void)?,
        onCompleted: (@MainActor () -> Void)?, onDisposed: (@MainActor () -> Void)?
    ) {
        self.onNext = onNext
        self.onError = onError
        self.onCompleted = onCompleted
        self.onDisposed = onDisposed
    }

    /// On the main thread, once the subscription ended: releases the handlers, then runs
    /// `onDisposed`.
    func finish() {
        onNext = nil
        onError = nil
        onCompleted = nil
        let onDisposed = self.onDisposed.take()
        guard let onDisposed else { return }
        MainActor.assumeIsolated { onDisposed() }
    }
}
