extension ObservableType {
    /// The source's elements from the first one that fails `predicate` on.
    ///
    /// Once an element fails `predicate`, it and every later element go through without
    /// being tested. A thrown error ends the sequence with it.
    public func skip(while predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = SkipWhileSink(predicate: predicate, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// The source's elements from the first one that fails `predicate` on.
    @available(*, deprecated, renamed: "skip(while:)")
    public func skipWhile(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        skip(while: predicate)
    }
}

final class SkipWhileSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `isForwarding` is only touched by upstream events, which arrive serially.
    private let predicate: @Sendable (Element) throws -> Bool
    private var isForwarding = false

    init(predicate: @escaping @Sendable (Element) throws -> Bool, downstream: AnyObserver<Element>) {
        self.predicate = predicate
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            if !isForwarding {
                guard !isStoppedOrDisposed else { return }
                do {
                    isForwarding = try !predicate(element)
                } catch {
                    forwardTerminal(.error(error))
                    return
                }
                if !isForwarding { return }
            }
            forward(event)
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}
