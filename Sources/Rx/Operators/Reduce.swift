extension ObservableType {
    /// Folds the elements into one value with `accumulator`, starting from `seed`, and
    /// emits `mapResult` of it when the source completes.
    ///
    /// An error from the source, or thrown by `accumulator` or `mapResult`, ends the
    /// sequence with it. An empty source emits `mapResult(seed)`.
    ///
    /// - Parameters:
    ///   - seed: The initial accumulated value, for each subscription.
    ///   - accumulator: Combines the accumulated value with the next element.
    ///   - mapResult: Turns the final accumulated value into the result.
    /// - Returns: A sequence of one element, the result, then `completed`.
    public func reduce<A, Result>(
        _ seed: A, accumulator: @escaping @Sendable (A, Element) throws -> A,
        mapResult: @escaping @Sendable (A) throws -> Result
    ) -> Observable<Result> {
        let source = asObservable()
        // The seed is a value the caller handed over; each subscription starts from a copy.
        let box = UncheckedSendable(seed)
        return Observable<Result>.make { observer in
            let sink = ReduceSink(seed: box.value, accumulator: accumulator, mapResult: mapResult, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// Folds the elements into one value with `accumulator`, starting from `seed`, and
    /// emits it when the source completes.
    ///
    /// An error from the source, or thrown by `accumulator`, ends the sequence with it. An
    /// empty source emits `seed`.
    ///
    /// - Parameters:
    ///   - seed: The initial accumulated value, for each subscription.
    ///   - accumulator: Combines the accumulated value with the next element.
    /// - Returns: A sequence of one element, the accumulated value, then `completed`.
    public func reduce<A>(_ seed: A, accumulator: @escaping @Sendable (A, Element) throws -> A) -> Observable<A> {
        reduce(seed, accumulator: accumulator, mapResult: { $0 })
    }
}

/// The sink of `reduce`.
final class ReduceSink<Element, Accumulate, Result>: Sink<Result>, @unchecked Sendable {
    // Sendable: `accumulation` is touched only by `on`, which the Rx grammar serialises.
    private var accumulation: Accumulate
    private let accumulator: @Sendable (Accumulate, Element) throws -> Accumulate
    private let mapResult: @Sendable (Accumulate) throws -> Result

    init(
        seed: Accumulate, accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate,
        mapResult: @escaping @Sendable (Accumulate) throws -> Result, downstream: AnyObserver<Result>
    ) {
        accumulation = seed
        self.accumulator = accumulator
        self.mapResult = mapResult
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        guard !isStoppedOrDisposed else { return }
        switch event {
        case .next(let element):
            do {
                accumulation = try accumulator(accumulation, element)
            } catch {
                forwardTerminal(.error(error))
            }
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            let result: Result
            do {
                result = try mapResult(accumulation)
            } catch {
                forwardTerminal(.error(error))
                return
            }
            forward(.next(result))
            forwardTerminal(.completed)
        }
    }
}
