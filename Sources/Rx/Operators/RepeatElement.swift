extension ObservableType {
    /// `element`, again and again, without end.
    ///
    /// With the default scheduler the elements are emitted in a loop that stops as soon as
    /// the subscription is disposed (so `repeatElement(1).take(3)` terminates); with
    /// another scheduler each element is one scheduled step.
    ///
    /// - Parameters:
    ///   - element: The element to repeat.
    ///   - scheduler: Where the loop runs.
    public static func repeatElement(
        _ element: Element, scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        // The element is a value the caller handed over, emitted as is.
        let box = UncheckedSendable(element)
        return Observable<Element>.generating(
            initialState: (), condition: { _ in true }, iterate: { _ in () }, resultSelector: { _ in box.value },
            scheduler: scheduler)
    }
}
