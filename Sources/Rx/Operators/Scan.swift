extension ObservableType {
    /// Applies `accumulator` to a running value and each element, and emits the running value
    /// after each step. The seed itself is not emitted; each subscription starts from it.
    ///
    /// A thrown error ends the sequence with it.
    ///
    /// - Parameters:
    ///   - seed: The initial running value.
    ///   - accumulator: Updates the running value in place with an element.
    public func scan<A>(into seed: A, accumulator: @escaping @Sendable (inout A, Element) throws -> Void)
        -> Observable<A>
    {
        let source = asObservable()
        // The seed is copied into each subscription's sink and only used there.
        let seed = UncheckedSendable(seed)
        return Observable<A>.make { observer in
            let sink = ScanSink(seed: seed.value, accumulator: accumulator, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// Applies `accumulator` to a running value and each element, and emits each new running
    /// value. The seed itself is not emitted; each subscription starts from it.
    ///
    /// A thrown error ends the sequence with it.
    ///
    /// - Parameters:
    ///   - seed: The initial running value.
    ///   - accumulator: Returns the next running value from the current one and an element.
    public func scan<A>(_ seed: A, accumulator: @escaping @Sendable (A, Element) throws -> A) -> Observable<A> {
        scan(into: seed) { running, element in
            running = try accumulator(running, element)
        }
    }
}

/// `running` is confined by the grammar: the source calls `on` serially.
final class ScanSink<Element, A>: Sink<A>, @unchecked Sendable {
    private var running: A
    private let accumulator: @Sendable (inout A, Element) throws -> Void

    init(seed: A, accumulator: @escaping @Sendable (inout A, Element) throws -> Void, downstream: AnyObserver<A>) {
        running = seed
        self.accumulator = accumulator
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            do {
                try accumulator(&running, element)
                forward(.next(running))
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
