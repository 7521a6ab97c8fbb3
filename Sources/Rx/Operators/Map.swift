extension ObservableType {
    /// Transforms each element with `transform`; a thrown error ends the sequence with it.
    @inlinable
    public func map<Result>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Observable<Result> {
        Observable<Result>.make(state: (asObservable(), transform)) { state, observer in
            let sink = MapSink(transform: state.1, downstream: observer)
            sink.attach(state.0.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

@usableFromInline
final class MapSink<Source, Result>: Sink<Result>, @unchecked Sendable {
    @usableFromInline let transform: @Sendable (Source) throws -> Result

    @inlinable
    init(transform: @escaping @Sendable (Source) throws -> Result, downstream: AnyObserver<Result>) {
        self.transform = transform
        super.init(downstream: downstream)
    }

    @inlinable
    func on(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            do {
                forward(.next(try transform(element)))
            } catch {
                forwardTerminal(.error(error))
            }
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            forwardTerminal(.completed)
        }
    }
}
