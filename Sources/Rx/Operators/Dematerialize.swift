extension ObservableType where Element: EventConvertible {
    /// Turns a sequence of `Event` values back into the events they describe.
    ///
    /// A `next` value becomes an element; an `error` or `completed` value ends the
    /// sequence. The source's own terminal event ends it too.
    ///
    /// - Returns: The events described by the source's elements.
    public func dematerialize() -> Observable<Element.Element> {
        let source = asObservable()
        // Built by a closure made here, so that the `EventConvertible` conformance is used
        // outside the `@Sendable` closure; the closure itself only creates a sink.
        let subscribe = UncheckedSendable { (observer: AnyObserver<Element.Element>) -> Disposable in
            let sink = DematerializeSink<Element>(downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
        return Observable<Element.Element>.make { observer in subscribe.value(observer) }
    }
}

/// The sink of `dematerialize`.
final class DematerializeSink<Wrapped: EventConvertible>: Sink<Wrapped.Element>, @unchecked Sendable {
    func on(_ event: Event<Wrapped>) {
        switch event {
        case .next(let wrapped):
            forwardEvent(wrapped.event)
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            forwardTerminal(.completed)
        }
    }
}
