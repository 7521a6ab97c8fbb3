extension ObservableType {
    /// The element at `index` (counting from 0), then `completed`.
    ///
    /// Fails with `RxError.argumentOutOfRange` if the source completes before reaching
    /// `index`, or at once if `index` is negative.
    public func element(at index: Int) -> Observable<Element> {
        if index < 0 { return Observable<Element>.error(RxError.argumentOutOfRange) }
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = ElementAtSink(remaining: index, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// The element at `index` (counting from 0), then `completed`.
    @available(*, deprecated, renamed: "element(at:)")
    public func elementAt(_ index: Int) -> Observable<Element> {
        element(at: index)
    }
}

final class ElementAtSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `remaining` is only touched by upstream events, which arrive serially.
    /// Elements still to skip; -1 once the element went out.
    private var remaining: Int

    init(remaining: Int, downstream: AnyObserver<Element>) {
        self.remaining = remaining
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if remaining > 0 {
                remaining -= 1
                return
            }
            guard remaining == 0 else { return }
            // Marked before forwarding, so an element sent back in from downstream is dropped.
            remaining = -1
            forward(event)
            forwardTerminal(.completed)
        case .error:
            forwardTerminal(event)
        case .completed:
            forwardTerminal(.error(RxError.argumentOutOfRange))
        }
    }
}
