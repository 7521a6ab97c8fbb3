extension InfallibleType {
    /// Subscribes `observers` to every event of this sequence: its elements, then its
    /// completion.
    ///
    /// - Returns: A disposable that ends the binding.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element {
        asObservable().subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Subscribes `observers` of optional elements to every event of this sequence.
    public func bind<Observer: ObserverType>(to observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        asObservable().map { Optional($0) }.subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Calls `binder` with this sequence and returns its result: lets a binding function
    /// read left to right (`infallible.bind(to: viewModel.bindTitle)`).
    public func bind<Result>(to binder: (Self) -> Result) -> Result {
        binder(self)
    }

    /// Calls the curried `binder` with this sequence, then with `curriedArgument`.
    public func bind<R1, R2>(to binder: (Self) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        binder(self)(curriedArgument)
    }

    /// Subscribes `onNext` to the elements of this sequence.
    ///
    /// - Returns: A disposable that ends the binding.
    public func bind(onNext: @escaping (Element) -> Void) -> Disposable {
        subscribe(onNext: onNext)
    }

    /// Makes every element of this sequence the value of `relays`; completion ends the
    /// binding (a relay cannot complete).
    public func bind(to relays: BehaviorRelay<Element>...) -> Disposable {
        subscribe(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Makes every element of this sequence, as an optional, the value of `relays`.
    public func bind(to relays: BehaviorRelay<Element?>...) -> Disposable {
        subscribe(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this sequence to `relays`; completion ends the binding (a
    /// relay cannot complete).
    public func bind(to relays: PublishRelay<Element>...) -> Disposable {
        subscribe(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this sequence, as an optional, to `relays`.
    public func bind(to relays: PublishRelay<Element?>...) -> Disposable {
        subscribe(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this sequence to `relays`, which replay them; completion
    /// ends the binding (a relay cannot complete).
    public func bind(to relays: ReplayRelay<Element>...) -> Disposable {
        subscribe(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this sequence, as an optional, to `relays`.
    public func bind(to relays: ReplayRelay<Element?>...) -> Disposable {
        subscribe(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }
}
