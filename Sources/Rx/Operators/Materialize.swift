extension ObservableType {
    /// Turns every event of the source into an element: its elements and its terminal
    /// event arrive as `Event` values, then the sequence completes.
    ///
    /// - Returns: The source's events as elements, followed by `completed`.
    public func materialize() -> Observable<Event<Element>> {
        let source = asObservable()
        return Observable<Event<Element>>.make { observer in
            let sink = MaterializeSink(downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// The sink of `materialize`.
final class MaterializeSink<Element>: Sink<Event<Element>>, @unchecked Sendable {
    func on(_ event: Event<Element>) {
        forward(.next(event))
        if event.isStopEvent {
            forwardTerminal(.completed)
        }
    }
}
