extension ObservableType {
    /// Drops every element and forwards only the terminal event.
    ///
    /// Returns `Observable<Never>`, as RxSwift 6 does.
    public func ignoreElements() -> Observable<Never> {
        let source = asObservable()
        return Observable<Never>.make { observer in
            let sink = IgnoreElementsSink<Element>(downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

final class IgnoreElementsSink<Element>: Sink<Never>, @unchecked Sendable {
    // Sendable: no state of its own.
    func on(_ event: Event<Element>) {
        switch event {
        case .next: break
        case .error(let error): forwardTerminal(.error(error))
        case .completed: forwardTerminal(.completed)
        }
    }
}
