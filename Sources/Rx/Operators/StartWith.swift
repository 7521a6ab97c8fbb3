extension ObservableType {
    /// Emits `elements`, then the elements of this sequence.
    ///
    /// The elements are emitted during subscription, before this sequence is subscribed.
    public func startWith(_ elements: Element...) -> Observable<Element> {
        let source = asObservable()
        let elements = UncheckedSendable(elements)
        return Observable<Element>.make { observer in
            for element in elements.value {
                observer.on(.next(element))
            }
            return source.run(observer)
        }
    }
}
