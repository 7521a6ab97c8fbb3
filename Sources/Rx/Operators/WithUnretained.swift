extension ObservableType {
    /// Combines each element with `obj`, held weakly, through `resultSelector`. Once `obj` has
    /// been freed, the next element completes the sequence instead.
    ///
    /// - Parameters:
    ///   - obj: The object to pass along; the sequence does not keep it alive.
    ///   - resultSelector: Combines the object and an element.
    public func withUnretained<Object: AnyObject, Out>(
        _ obj: Object, resultSelector: @escaping @Sendable (Object, Element) -> Out
    ) -> Observable<Out> {
        let source = asObservable()
        let reference = WithUnretainedReference(obj)
        return Observable<Out>.make { observer in
            let sink = WithUnretainedSink(reference: reference, resultSelector: resultSelector, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// Pairs each element with `obj`, held weakly. Once `obj` has been freed, the next element
    /// completes the sequence instead.
    ///
    /// - Parameter obj: The object to pass along; the sequence does not keep it alive.
    public func withUnretained<Object: AnyObject>(_ obj: Object) -> Observable<(Object, Element)> {
        withUnretained(obj) { ($0, $1) }
    }
}

/// A weak reference to the object of `withUnretained`.
///
/// `@unchecked Sendable`: loading a weak reference is thread-safe, and the object is only handed
/// to the caller's `resultSelector`, on the thread the source emits on, which is what the
/// caller asked for by passing it (as in RxSwift).
struct WithUnretainedReference<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?

    init(_ object: Object) {
        self.object = object
    }
}

final class WithUnretainedSink<Object: AnyObject, Element, Out>: Sink<Out>, @unchecked Sendable {
    private let reference: WithUnretainedReference<Object>
    private let resultSelector: @Sendable (Object, Element) -> Out

    init(
        reference: WithUnretainedReference<Object>, resultSelector: @escaping @Sendable (Object, Element) -> Out,
        downstream: AnyObserver<Out>
    ) {
        self.reference = reference
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            // A freed object ends the sequence quietly, as RxSwift's does.
            guard let object = reference.object else { return forwardTerminal(.completed) }
            forward(.next(resultSelector(object, element)))
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            forwardTerminal(.completed)
        }
    }
}
