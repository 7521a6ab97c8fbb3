extension ObservableType where Element: RxAbstractInteger {
    /// The `count` integers from `start` upwards, then `completed`.
    ///
    /// A negative `count` fails with `RxError.argumentOutOfRange` and a range that would
    /// pass `Element.max` with `RxError.overflow`, when subscribed. With the default
    /// scheduler the integers are emitted in a loop that stops as soon as the
    /// subscription is disposed; with another scheduler each integer is one scheduled step.
    ///
    /// - Parameters:
    ///   - start: The first integer.
    ///   - count: How many integers to emit.
    ///   - scheduler: Where the loop runs.
    public static func range(
        start: Element, count: Element, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        if count < 0 { return Observable<Element>.error(RxError.argumentOutOfRange) }
        if count > 0 && start.addingReportingOverflow(count - 1).overflow {
            return Observable<Element>.error(RxError.overflow)
        }
        return Observable<Element>.generating(
            initialState: Element.zero,
            condition: { $0 < count },
            // Offsets stay below `count`, which cannot overflow from `start` (checked above).
            iterate: { $0 + 1 },
            resultSelector: { start + $0 },
            scheduler: scheduler)
    }
}
