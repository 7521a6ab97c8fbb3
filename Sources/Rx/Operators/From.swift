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
        // Iterated by each subscription, one element per scheduled step, as in RxSwift: a
        // lazy or endless sequence is neither walked nor copied when `from` is called.
        // The iterator is made by a closure built here, outside the `@Sendable` ones, so
        // that they capture no metatype of `Source`.
        let makeIterator = UncheckedSendable({ AnyIterator(box.value.makeIterator()) })
        return Observable<Element>.make { observer in
            let cursor = SequenceCursor(makeIterator.value())
            return scheduler.scheduleRecursive(()) { _, recurse in
                if let element = cursor.next() {
                    observer.on(.next(element))
                    recurse(())
                } else {
                    observer.on(.completed)
                }
            }
        }
    }
}

/// One subscription's position in a `from` sequence on a scheduler.
@usableFromInline
final class SequenceCursor<Iterator: IteratorProtocol>: @unchecked Sendable {
    // @unchecked: advanced only by the subscription's recursive steps, which run one after
    // another.
    @usableFromInline var iterator: Iterator

    @inlinable
    init(_ iterator: Iterator) {
        self.iterator = iterator
    }

    @inlinable
    func next() -> Iterator.Element? {
        iterator.next()
    }
}
