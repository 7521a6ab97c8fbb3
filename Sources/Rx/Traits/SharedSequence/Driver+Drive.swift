/// What `drive` reports when it is called off the main thread (debug builds only).
private let driveOffMainMessage =
    "Rx: `drive` is meant to be called on the main thread, so that the Driver's replayed element is delivered there."

extension SharedSequenceConvertibleType where SharingStrategy == DriverSharingStrategy {
    /// In debug builds, reports (without stopping) a `drive` made off the main thread.
    private func checkDriveThread() {
        #if DEBUG
            MainScheduler.ensureRunningOnMainThread(errorMessage: driveOffMainMessage)
        #endif
    }

    /// Subscribes `observers` to every event of this Driver: its elements, then its
    /// completion. Call it on the main thread.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element {
        checkDriveThread()
        return asObservable().subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Subscribes `observers` of optional elements to every event of this Driver. Call it
    /// on the main thread.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func drive<Observer: ObserverType>(_ observers: Observer...) -> Disposable
    where Observer.Element == Element? {
        checkDriveThread()
        return asObservable().map { Optional($0) }.subscribe { event in
            for observer in observers { observer.on(event) }
        }
    }

    /// Makes every element of this Driver the value of `relays`; completion ends the
    /// subscription (a relay cannot complete). Call it on the main thread.
    public func drive(_ relays: BehaviorRelay<Element>...) -> Disposable {
        drive(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Makes every element of this Driver, as an optional, the value of `relays`. Call it
    /// on the main thread.
    public func drive(_ relays: BehaviorRelay<Element?>...) -> Disposable {
        drive(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Driver to `relays`; completion ends the subscription (a
    /// relay cannot complete). Call it on the main thread.
    public func drive(_ relays: PublishRelay<Element>...) -> Disposable {
        drive(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Driver, as an optional, to `relays`. Call it on the
    /// main thread.
    public func drive(_ relays: PublishRelay<Element?>...) -> Disposable {
        drive(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Driver to `relays`, which replay them; completion ends
    /// the subscription. Call it on the main thread.
    public func drive(_ relays: ReplayRelay<Element>...) -> Disposable {
        drive(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Sends every element of this Driver, as an optional, to `relays`. Call it on the
    /// main thread.
    public func drive(_ relays: ReplayRelay<Element?>...) -> Disposable {
        drive(onNext: { element in
            for relay in relays { relay.accept(element) }
        })
    }

    /// Calls `transformation` with this Driver as an `Observable` and returns its result:
    /// a binding function reads left to right (`driver.drive(viewModel.bindTitle)`). Call
    /// it on the main thread.
    public func drive<Result>(_ transformation: (Observable<Element>) -> Result) -> Result {
        checkDriveThread()
        return transformation(asObservable())
    }

    /// Calls the curried `with` with this Driver as an `Observable`, then with
    /// `curriedArgument`. Call it on the main thread.
    public func drive<R1, R2>(_ with: (Observable<Element>) -> (R1) -> R2, curriedArgument: R1) -> R2 {
        checkDriveThread()
        return with(asObservable())(curriedArgument)
    }

    /// Subscribes handlers for the elements and the completion of this Driver; it cannot
    /// fail, so there is no error handler. Call it on the main thread.
    ///
    /// The handlers are not `@Sendable`: they run on the Driver's scheduler (the main
    /// thread). `onDisposed` runs once, after `onCompleted` or on `dispose()`.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func drive(
        onNext: ((Element) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        checkDriveThread()
        return asObservable().subscribe(onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes handlers that receive `object` while it is alive; events that arrive
    /// after `object` was freed are ignored. Nothing retains `object`. Call it on the main
    /// thread.
    ///
    /// - Returns: A disposable that ends the subscription.
    public func drive<Object: AnyObject>(
        with object: Object,
        onNext: ((Object, Element) -> Void)? = nil,
        onCompleted: ((Object) -> Void)? = nil,
        onDisposed: ((Object) -> Void)? = nil
    ) -> Disposable {
        checkDriveThread()
        return asObservable().subscribe(
            with: object, onNext: onNext, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes to this Driver and ignores its events: keeps its side effects running.
    /// Call it on the main thread.
    public func drive() -> Disposable {
        drive(onNext: nil, onCompleted: nil, onDisposed: nil)
    }
}
