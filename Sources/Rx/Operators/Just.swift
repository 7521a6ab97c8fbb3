extension ObservableType {
    /// A sequence of one element, then `completed`, delivered during subscription.
    @inlinable
    public static func just(_ element: Element) -> Observable<Element> {
        JustProducer(element)
    }

    /// A sequence of one element, then `completed`, delivered on `scheduler`: the element
    /// in one scheduled action and `completed` in the next, as RxSwift does (on a
    /// `TestScheduler` subscribed at 200: `next` at 201, `completed` at 202).
    public static func just(_ element: Element, scheduler: ImmediateSchedulerType) -> Observable<Element> {
        let box = UncheckedSendable(element)
        return Observable<Element>.make { observer in
            scheduler.schedule(()) { _ in
                observer.on(.next(box.value))
                return scheduler.schedule(()) { _ in
                    observer.on(.completed)
                    return Disposables.create()
                }
            }
        }
    }

    /// A sequence that completes at once.
    public static func empty() -> Observable<Element> {
        Observable<Element>.make { observer in
            observer.on(.completed)
            return Disposables.create()
        }
    }

    /// A sequence that never emits and never terminates.
    public static func never() -> Observable<Element> {
        Observable<Element>.make { _ in Disposables.create() }
    }

    /// A sequence that fails at once with `error`.
    public static func error(_ error: Swift.Error) -> Observable<Element> {
        Observable<Element>.make { observer in
            observer.on(.error(error))
            return Disposables.create()
        }
    }

    /// A sequence made anew, by `observableFactory`, for each subscription. A thrown error
    /// becomes the sequence's error.
    public static func deferred(_ observableFactory: @escaping @Sendable () throws -> Observable<Element>)
        -> Observable<Element>
    {
        Observable<Element>.make { observer in
            do {
                return try observableFactory().subscribe(observer)
            } catch {
                observer.on(.error(error))
                return Disposables.create()
            }
        }
    }
}
