extension ObservableType {
    /// Subscribes `observers` to every event of this sequence, errors and completion
    /// included.
    ///
    /// - Returns: A disposable that ends the binding.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element {
        subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Subscribes `observers` of optional elements to every event of this sequence.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        map { Optional($0) }.subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Calls `binder` with this sequence and returns its result: lets a binding function
    /// read left to right (`observable.bind(to: viewModel.bindTitle)`).
    public func bind<Result>(to binder: (Self) -> Result) -> Result {
        binder(self)
    }

    /// Calls the curried `binder` with this sequence, then with `curriedArgument`.
    public func bind<R1, R2>(to binder: (Self) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        binder(self)(curriedArgument)
    }

    /// Subscribes `onNext` to the elements of this sequence.
    ///
    /// A binding is not meant to fail: an error goes to `Hooks.defaultErrorHandler`
    /// (RxSwift stops a debug build there; this package never crashes on it).
    public func bind(onNext: @escaping (Element) -> Void) -> Disposable {
        subscribe(onNext: onNext, onError: { error in Hooks.defaultErrorHandler([], error) })
    }
}

extension ObservableType {
    /// Sends every element of this sequence to `relays`.
    ///
    /// Relays cannot terminate, so completion ends the binding silently and an error goes
    /// to `Hooks.defaultErrorHandler` (RxSwift stops a debug build there).
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        bindElements { element in
            for relay in relays { relay.accept(element) }
        }
    }

    /// Sends every element of this sequence, as an optional, to `relays`.
    public func bind(to relays: PublishRelay<Element?>...) -> Disposable {
        bindElements { element in
            for relay in relays { relay.accept(element) }
        }
    }

    /// Makes every element of this sequence the value of `relays`.
    ///
    /// Completion ends the binding silently; an error goes to `Hooks.defaultErrorHandler`.
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        bindElements { element in
            for relay in relays { relay.accept(element) }
        }
    }

    /// Makes every element of this sequence, as an optional, the value of `relays`.
    public func bind(to relays: BehaviorRelay<Element?>...) -> Disposable {
        bindElements { element in
            for relay in relays { relay.accept(element) }
        }
    }

    /// Sends every element of this sequence to `relays`.
    ///
    /// Completion ends the binding silently; an error goes to `Hooks.defaultErrorHandler`.
    public func bind(to relays: ReplayRelay<Element>...) -> Disposable {
        bindElements { element in
            for relay in relays { relay.accept(element) }
        }
    }

    /// Sends every element of this sequence, as an optional, to `relays`.
    public func bind(to relays: ReplayRelay<Element?>...) -> Disposable {
        bindElements { element in
            for relay in relays { relay.accept(element) }
        }
    }

    /// Subscribes `accept` to the elements; completion is ignored and an error reported.
    private func bindElements(_ accept: @escaping (Element) -> Void) -> Disposable {
        subscribe(
            onNext: accept,
            onError: { error in Hooks.defaultErrorHandler([], error) })
    }
}
