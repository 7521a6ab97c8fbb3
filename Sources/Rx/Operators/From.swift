extension ObservableType {
    /// The elements of `array`, then `completed`.
    ///
    /// With the default scheduler the elements are emitted in a loop on the current
    /// thread's trampoline, which stops as soon as the subscription is disposed; with
    /// another scheduler each element is a scheduled step.
    @inlinable
    public static func from(_ array: [Element], scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance)
        -> Observable<Element>
    {
        sequence(UncheckedSendable(array), scheduler: scheduler)
    }

    /// The elements of `sequence`, then `completed`.
    @inlinable
    public static func from<Source: Swift.Sequence>(
        _ sequence: Source, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> where Source.Element == Element {
        self.sequence(UncheckedSendable(sequence), scheduler: scheduler)
    }

    /// The given elements, then `completed`.
    @inlinable
    public static func of(_ elements: Element..., scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance)
        -> Observable<Element>
    {
        sequence(UncheckedSendable(elements), scheduler: scheduler)
    }

    /// The element if there is one, then `completed`.
    @inlinable
    public static func from(_ optional: Element?, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance)
        -> Observable<Element>
    {
        sequence(UncheckedSendable(optional.map { [$0] } ?? []), scheduler: scheduler)
    }

    /// The element if there is one, then `completed`: RxSwift's spelling, during
    /// subscription.
    @inlinable
    public static func from(optional: Element?) -> Observable<Element> {
        from(optional, scheduler: CurrentThreadScheduler.instance)
    }

    /// The element if there is one, then `completed`, on `scheduler`: RxSwift's spelling
    /// (the element in one scheduled step, `completed` in the next).
    @inlinable
    public static func from(optional: Element?, scheduler: ImmediateSchedulerType) -> Observable<Element> {
        from(optional, scheduler: scheduler)
    }

    // The sequence is values the caller handed over; it is iterated by one subscription at
    // a time on one thread, hence the unchecked box.
    @inlinable
    static func sequence<Source: Swift.Sequence>(_ box: UncheckedSendable<Source>, scheduler: ImmediateSchedulerType)
        -> Observable<Element> where Source.Element == Element
    {
        if scheduler is CurrentThreadScheduler {
            return Observable<Element>.make { observer in
                let cancel = BooleanDisposable()
                CurrentThreadScheduler.trampoline {
                    for element in box.value {
                        if cancel.isDisposed { return }
                        observer.on(.next(element))
                    }
                    if !cancel.isDisposed { observer.on(.completed) }
                }
                return cancel
            }
        }
        let elements = UncheckedSendable(Array(box.value))
        return Observable<Element>.make { observer in
            scheduler.scheduleRecursive(0) { index, recurse in
                if index < elements.value.count {
                    observer.on(.next(elements.value[index]))
                    recurse(index + 1)
                } else {
                    observer.on(.completed)
                }
            }
        }
    }
}
