extension ObservableType {
    /// Emits `default` before completing if the source completes without elements.
    ///
    /// - Parameter default: The element emitted in place of an empty sequence.
    /// - Returns: The source's elements, or `default` if there were none.
    public func ifEmpty(default: Element) -> Observable<Element> {
        let source = asObservable()
        let box = UncheckedSendable(`default`)
        return Observable<Element>.make { observer in
            let sink = DefaultIfEmptySink(default: box.value, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// The sink of `ifEmpty(default:)`.
final class DefaultIfEmptySink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `isEmpty` is touched only by `on`, which the Rx grammar serialises.
    private let defaultElement: Element
    private var isEmpty = true

    init(default: Element, downstream: AnyObserver<Element>) {
        defaultElement = `default`
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            isEmpty = false
            forward(event)
        case .error:
            forwardTerminal(event)
        case .completed:
            if isEmpty { forward(.next(defaultElement)) }
            forwardTerminal(.completed)
        }
    }
}
