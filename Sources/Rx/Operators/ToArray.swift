extension ObservableType {
    /// Collects every element and emits them as one array when the source completes.
    ///
    /// An error from the source ends the sequence with it, and the elements collected so
    /// far are dropped. An empty source emits `[]`.
    ///
    /// - Returns: A `Single` of the array of the source's elements (as in RxSwift 6).
    public func toArray() -> Single<[Element]> {
        let source = asObservable()
        return Single(
            raw: Observable<[Element]>.make { observer in
                let sink = ToArraySink(downstream: observer)
                sink.attach(source.run(AnyObserver { sink.on($0) }))
                return sink
            })
    }
}

/// The sink of `toArray`.
final class ToArraySink<Element>: Sink<[Element]>, @unchecked Sendable {
    // Sendable: `elements` is touched only by `on`, which the Rx grammar serialises.
    private var elements: [Element] = []

    func on(_ event: Event<Element>) {
        guard !isStoppedOrDisposed else { return }
        switch event {
        case .next(let element):
            elements.append(element)
        case .error(let error):
            elements = []
            forwardTerminal(.error(error))
        case .completed:
            let result = elements
            elements = []
            forward(.next(result))
            forwardTerminal(.completed)
        }
    }
}
