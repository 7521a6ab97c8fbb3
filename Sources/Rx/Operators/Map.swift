extension ObservableType {
    /// Transforms each element with `transform`; a thrown error ends the sequence with it.
    @inlinable
    public func map<Result>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Observable<Result> {
        Observable<Result>.make(state: (asObservable(), transform)) { state, observer in
            // `map` over `just` is fused (as RxJava does with its scalar sources): the element
            // is transformed in place, with no `MapSink` subscribed to the source. Nothing a
            // subscriber can see changes: the sink skipped is reachable by no one before
            // `just` has emitted everything, so it could never have been disposed or stopped
            // early. Checked here, at subscription, rather than when the chain is assembled:
            // one assembly path lets the optimiser see through `Observable.just(x).map(f)`,
            // fold the check (see `isJust`), and keep both producers on the stack.
            if state.0.isJust {
                let element = unsafeDowncast(state.0, to: JustProducer<Element>.self).element
                let result: Result
                do {
                    result = try state.1(element)
                } catch {
                    observer.on(.error(error))
                    return NopDisposable()
                }
                observer.on(.next(result))
                observer.on(.completed)
                return NopDisposable()
            }
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
