extension ObservableType {
    /// Pairs each element with its index, counting from 0.
    ///
    /// If the index would overflow `Int`, the sequence ends with `RxError.overflow`.
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        let source = asObservable()
        return Observable<(index: Int, element: Element)>.make { observer in
            let sink = EnumeratedSink<Element>(downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// `nextIndex` is confined by the grammar: the source calls `on` serially.
final class EnumeratedSink<Element>: Sink<(index: Int, element: Element)>, @unchecked Sendable {
    private var nextIndex = 0

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            let index = nextIndex
            let (incremented, overflow) = index.addingReportingOverflow(1)
            guard !overflow else { return forwardTerminal(.error(RxError.overflow)) }
            nextIndex = incremented
            forward(.next((index: index, element: element)))
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            forwardTerminal(.completed)
        }
    }
}
