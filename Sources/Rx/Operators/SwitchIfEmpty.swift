extension ObservableType {
    /// Continues with `other` if the source completes without elements.
    ///
    /// When the source completes empty, it is disposed and `other` is subscribed in its
    /// place. A source that emitted, or failed, ends the sequence as it is.
    ///
    /// - Parameter other: The sequence used in place of an empty source.
    /// - Returns: The source's elements, or `other`'s if the source had none.
    public func ifEmpty(switchTo other: Observable<Element>) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = SwitchIfEmptySink(other: other, downstream: observer)
            sink.run(source)
            return sink
        }
    }
}

/// The sink of `ifEmpty(switchTo:)`.
final class SwitchIfEmptySink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: `isEmpty` is touched only by `on`, which the Rx grammar serialises; the
    // subscriptions are behind the lock.
    private let other: Observable<Element>
    private var isEmpty = true
    // The source's completion does not stop the sink when it switches to `other`: a
    // source that sends after completing is kept out by this gate.
    private let sourceGate = SourceGate()

    private struct State {
        var source = ErrorsDisposableSlot()
        var other = ErrorsDisposableSlot()
    }

    private let shared = LockedState(State())

    init(other: Observable<Element>, downstream: AnyObserver<Element>) {
        self.other = other
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        let subscription = source.run(AnyObserver { self.on($0) })
        shared.withLock { $0.source.set(subscription, generation: 0) }?.dispose()
    }

    private func on(_ event: Event<Element>) {
        switch event {
        case .next:
            guard sourceGate.isOpen else { return }
            isEmpty = false
            forward(event)
        case .error:
            if sourceGate.close() { forwardTerminal(event) }
        case .completed:
            guard sourceGate.close() else { return }
            guard isEmpty else {
                forwardTerminal(event)
                return
            }
            guard !isStoppedOrDisposed else { return }
            // The source is over: release it before the fallback starts.
            shared.withLock { $0.source.dispose() }?.dispose()
            let subscription = other.subscribe(AnyObserver { self.forwardEvent($0) })
            shared.withLock { $0.other.set(subscription, generation: 0) }?.dispose()
        }
    }

    override func didDispose() {
        let (source, other) = shared.withLock { ($0.source.dispose(), $0.other.dispose()) }
        source?.dispose()
        other?.dispose()
    }
}
