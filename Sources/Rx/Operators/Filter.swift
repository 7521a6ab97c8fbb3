extension ObservableType {
    /// Only the elements for which `predicate` is true; a thrown error ends the sequence.
    @inlinable
    public func filter(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        Observable<Element>.make(state: (asObservable(), predicate)) { state, observer in
            let sink = FilterSink(predicate: state.1, downstream: observer)
            sink.attach(state.0.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

@usableFromInline
final class FilterSink<Element>: Sink<Element>, @unchecked Sendable {
    @usableFromInline let predicate: @Sendable (Element) throws -> Bool

    @inlinable
    init(predicate: @escaping @Sendable (Element) throws -> Bool, downstream: AnyObserver<Element>) {
        self.predicate = predicate
        super.init(downstream: downstream)
    }

    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            do {
                if try predicate(element) { forward(event) }
            } catch {
                forwardTerminal(.error(error))
            }
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}
