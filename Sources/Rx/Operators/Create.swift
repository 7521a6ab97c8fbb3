extension ObservableType {
    /// An observable whose subscription runs `subscribe` with an observer.
    ///
    /// The observer given to `subscribe` enforces the grammar: events after a terminal
    /// event, or after the subscription was disposed, are ignored; a terminal event
    /// disposes the disposable `subscribe` returned.
    ///
    /// ```swift
    /// let numbers = Observable<Int>.create { observer in
    ///     observer.onNext(1)
    ///     observer.onCompleted()
    ///     return Disposables.create()
    /// }
    /// ```
    @inlinable
    public static func create(_ subscribe: @escaping @Sendable (AnyObserver<Element>) -> Disposable)
        -> Observable<Element>
    {
        Observable<Element>.make { observer in
            let sink = CreateSink(downstream: observer)
            sink.attach(subscribe(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

/// Guards the observer handed to user code in `Observable.create`.
///
/// Inlinable, like `create`, so that the modules that create observables (Leash's
/// executions and streams) specialise it: unspecialised, each event cost a generic
/// metadata look-up and a value-witness copy.
@usableFromInline
final class CreateSink<Element>: Sink<Element>, @unchecked Sendable {
    @inlinable
    func on(_ event: Event<Element>) {
        switch event {
        case .next: forward(event)
        case .error, .completed: forwardTerminal(event)
        }
    }
}
