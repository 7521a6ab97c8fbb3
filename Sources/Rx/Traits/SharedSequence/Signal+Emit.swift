extension SharedSequenceConvertibleType where SharingStrategy == SignalSharingStrategy {
    /// Subscribes `observers` to every event of this Signal: its elements, then its
    /// completion.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func emit<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element {
        asObservable().subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Subscribes `observers` of optional elements to every event of this Signal.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func emit<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        asObservable().map { Optional($0) }.subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Makes every element of this Signal the value of `relays`; completion ends the
    /// subscription (a relay cannot complete).
    public func emit(to relays: BehaviorRelay<Element>...) -> Disposable {
        emit(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Makes every element of this Signal, as an optional, the value of `relays`.
    public func emit(to relays: BehaviorRelay<Element?>...) -> Disposable {
        emit(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Signal to `relays`; completion ends the subscription.
    public func emit(to relays: PublishRelay<Element>...) -> Disposable {
        emit(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Signal, as an optional, to `relays`.
    public func emit(to relays: PublishRelay<Element?>...) -> Disposable {
        emit(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Signal to `relays`, which replay them; completion ends
    /// the subscription.
    public func emit(to relays: ReplayRelay<Element>...) -> Disposable {
        emit(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Signal, as an optional, to `relays`.
    public func emit(to relays: ReplayRelay<Element?>...) -> Disposable {
        emit(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Subscribes handlers for the elements and the completion of this Signal; it cannot
    /// fail, so there is no error handler.
    ///
    /// The handlers are not `@Sendable`: they run on the Signal's scheduler (the main
    /// thread). `onDisposed` runs once, after `onCompleted` or on `dispose()`.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func emit(
        onNext: ((Element) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes handlers that receive `object` while it is alive; events that arrive
    /// after `object` was freed are ignored. Nothing retains `object`.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func emit<Object: AnyObject>(
        with object: Object,
        onNext: ((Object, Element) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        asObservable().subscribe(with: object, onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes to this Signal and ignores its events: keeps its side effects running.
    public func emit() -> Disposable {
        emit(onNext: nil, onCompleted: nil, onDisposed: nil)
    }
}
