extension ObservableType {
    /// The last `count` elements, emitted when the source completes, followed by
    /// `completed`.
    ///
    /// Elements are buffered until the source completes; an error drops them. A negative
    /// `count` fails with `RxError.argumentOutOfRange`.
    public func takeLast(_ count: Int) -> Observable<Element> {
        if count < 0 { return Observable<Element>.error(RxError.argumentOutOfRange) }
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = TakeLastSink(count: count, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

final class TakeLastSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the buffer is only touched by upstream events, which arrive serially.
    private let count: Int
    /// A ring buffer once full: `oldest` is where the next element overwrites. It grows as
    /// elements arrive, so a large `count` costs nothing up front.
    private var buffer: [Element] = []
    private var oldest = 0

    init(count: Int, downstream: AnyObserver<Element>) {
        self.count = count
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard count > 0 else { return }
            if buffer.count < count {
                buffer.append(element)
            } else {
                buffer[oldest] = element
                oldest = oldest + 1 == count ? 0 : oldest + 1
            }
        case .error:
            buffer = []
            forwardTerminal(event)
        case .completed:
            let elements = buffer
            let start = oldest
            buffer = []
            for offset in 0..<elements.count {
                // Downstream may dispose while the buffer drains.
                if isStoppedOrDisposed { return }
                let index = start + offset
                forward(.next(elements[index < elements.count ? index : index - elements.count]))
            }
            forwardTerminal(.completed)
        }
    }
}
