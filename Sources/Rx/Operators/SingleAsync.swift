extension ObservableType {
    /// The source's only element: fails with `RxError.moreThanOneElement` as soon as a second
    /// element arrives, or with `RxError.noElements` if the source completes empty.
    ///
    /// The element is forwarded when it arrives; `completed` follows the source's.
    public func single() -> Observable<Element> {
        singleAsync(predicate: nil)
    }

    /// The source's only element that satisfies `predicate`: fails with
    /// `RxError.moreThanOneElement` as soon as a second one arrives, or with
    /// `RxError.noElements` if the source completes without one.
    ///
    /// - Parameter predicate: Tested on each element; a thrown error ends the sequence with it.
    public func single(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        singleAsync(predicate: predicate)
    }

    private func singleAsync(predicate: (@Sendable (Element) throws -> Bool)?) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = SingleAsyncSink(predicate: predicate, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

final class SingleAsyncSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `hasElement` is only touched by upstream events, which arrive serially.
    private let predicate: (@Sendable (Element) throws -> Bool)?
    private var hasElement = false

    init(predicate: (@Sendable (Element) throws -> Bool)?, downstream: AnyObserver<Element>) {
        self.predicate = predicate
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            if let predicate {
                do {
                    guard try predicate(element) else { return }
                } catch {
                    forwardTerminal(.error(error))
                    return
                }
            }
            if hasElement {
                forwardTerminal(.error(RxError.moreThanOneElement))
                return
            }
            hasElement = true
            forward(event)
        case .error:
            forwardTerminal(event)
        case .completed:
            forwardTerminal(hasElement ? .completed : .error(RxError.noElements))
        }
    }
}
