extension ObservableType {
    /// The source's elements emitted after `other` emits its first element.
    ///
    /// `other` is subscribed after the source and unsubscribed once it emits (or completes).
    /// An error from either ends the sequence with it. As in RxSwift, if the source
    /// completes before `other` emitted, the subscription ends without a `completed` event.
    public func skip<Other: ObservableType>(until other: Other) -> Observable<Element> {
        let source = asObservable()
        let other = other.asObservable()
        return Observable<Element>.make { observer in
            let delivery = SkipUntilDelivery(observer)
            let sink = SkipUntilSink(downstream: AnyObserver { delivery.on($0) }, delivery: delivery)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            sink.otherSubscription.setDisposable(other.run(AnyObserver { sink.onOther($0) }))
            return sink
        }
    }

    /// The source's elements emitted after `other` emits its first element.
    @available(*, deprecated, renamed: "skip(until:)")
    public func skipUntil<Other: ObservableType>(_ other: Other) -> Observable<Element> {
        skip(until: other)
    }
}

/// `skip(until:)` needs no delivery queue: the source forwards elements only once the gate
/// is open, and `other` is ignored from then on, so the two never deliver elements at the
/// same time; their terminal events are already exclusive through `forwardTerminal`.
final class SkipUntilSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the gate is atomic; the disposable is thread-safe.
    /// 0 while `other` runs, 1 once it fired (elements go through), 2 once it completed
    /// without firing (they never will: what it sends after that is ignored).
    private let isOpen = AtomicInt(0)
    let otherSubscription = SingleAssignmentDisposable()
    private let delivery: SkipUntilDelivery<Element>

    init(downstream: AnyObserver<Element>, delivery: SkipUntilDelivery<Element>) {
        self.delivery = delivery
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if isOpen.load() == 1 { forward(event) }
        case .error:
            forwardTerminal(event)
        case .completed:
            if isOpen.load() == 1 {
                forwardTerminal(event)
            } else {
                // No terminal event goes out, so downstream keeps this sink as its upstream:
                // let go of downstream, or the two keep each other alive.
                dispose()
                delivery.release()
            }
        }
    }

    func onOther<Other>(_ event: Event<Other>) {
        // `other`'s events arrive serially, and only this method opens the gate.
        guard isOpen.load() == 0 else { return }
        switch event {
        case .next:
            isOpen.store(1)
            otherSubscription.dispose()
        case .error(let error):
            forwardTerminal(.error(error))
        case .completed:
            isOpen.store(2)
            otherSubscription.dispose()
        }
    }

    override func didDispose() {
        otherSubscription.dispose()
    }
}

/// Where a `skip(until:)` sink delivers: downstream, until the subscription ends without a
/// terminal event (the source completed before `other` fired, as in RxSwift).
///
/// Downstream holds the sink as its upstream until it is disposed or receives a terminal
/// event. A subscription that ends silently sends none, so the sink drops downstream here
/// instead; otherwise the two would keep each other alive once the caller dropped the
/// disposable (`_ = source.skip(until: other).subscribe()`).
final class SkipUntilDelivery<Element>: @unchecked Sendable {
    // Sendable: the observer is behind the lock.
    private let observer: LockedState<AnyObserver<Element>?>

    init(_ observer: AnyObserver<Element>) {
        self.observer = LockedState(observer)
    }

    func on(_ event: Event<Element>) {
        observer.withLock { $0 }?.on(event)
    }

    /// Drops downstream; nothing is delivered afterwards.
    func release() {
        observer.withLock { $0 = nil }
    }
}
