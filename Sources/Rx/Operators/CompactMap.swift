extension ObservableType {
    /// Transforms each element with `transform` and emits the non-`nil` results; a thrown error
    /// ends the sequence with it.
    @inlinable
    public func compactMap<Result>(_ transform: @escaping @Sendable (Element) throws -> Result?) -> Observable<Result> {
        let source = asObservable()
        return Observable<Result>.make { observer in
            let sink = CompactMapSink(transform: transform, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

@usableFromInline
final class CompactMapSink<Source, Result>: Sink<Result>, @unchecked Sendable {
    @usableFromInline let transform: @Sendable (Source) throws -> Result?

    @inlinable
    init(transform: @escaping @Sendable (Source) throws -> Result?, downstream: AnyObserver<Result>) {
        self.transform = transform
        super.init(downstream: downstream)
    }

    @inlinable
    func on(_ event: Event<Source>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            do {
                if let result = try transform(element) { forward(.next(result)) }
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
