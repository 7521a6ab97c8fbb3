extension ObservableType {
    /// At each element (or completion) of `sampler`, the latest source element since the
    /// previous sample, if there is one; otherwise `defaultValue`, if given.
    ///
    /// The sequence completes at the first tick after the source completed; as in RxSwift,
    /// if `sampler` completes first, nothing more is sampled and the sequence never
    /// completes. An error from either ends the sequence with it. The source is subscribed
    /// before `sampler`.
    ///
    /// - Parameters:
    ///   - sampler: Its elements are the sampling ticks.
    ///   - defaultValue: Emitted at a tick when the source emitted nothing new.
    public func sample<Sampler: ObservableType>(_ sampler: Sampler, defaultValue: Element? = nil)
        -> Observable<Element>
    {
        let source = asObservable()
        let sampler = sampler.asObservable()
        // The default value is the caller's to hand over, like the element of `just`.
        let defaultBox = UncheckedSendable(defaultValue)
        return Observable<Element>.make { observer in
            let sink = SampleSink(defaultValue: defaultBox.value, downstream: observer)
            sink.sourceSubscription.setDisposable(source.run(AnyObserver { sink.on($0) }))
            sink.samplerSubscription.setDisposable(sampler.run(AnyObserver { sink.onSampler($0) }))
            return sink
        }
    }
}

/// `sample`: the source stores, the sampler delivers; both touch the state from their own
/// threads, so it is locked and delivery goes through one queue.
final class SampleSink<Element>: Sink<Element>, @unchecked Sendable {
    // Sendable: the state is behind its lock; the disposables are thread-safe; the default
    // value is immutable.
    private struct State {
        var latest: Element?
        var isSourceDone = false
        var delivery = DeliveryLine<Event<Element>>()
    }

    private let defaultValue: Element?
    private let locked = LockedState(State())
    let sourceSubscription = SingleAssignmentDisposable()
    let samplerSubscription = SingleAssignmentDisposable()
    // The sampler's completion does not always stop the sink: what it sends after that,
    // breaking the grammar, is kept out.
    private let samplerGate = SourceGate()

    init(defaultValue: Element?, downstream: AnyObserver<Element>) {
        self.defaultValue = defaultValue
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        // `isSourceDone`: what the source sends after completing is dropped.
        case .next(let element):
            locked.withLock { state in
                if !state.isSourceDone { state.latest = element }
            }
        case .error:
            deliver(locked.withLock { $0.isSourceDone ? nil : $0.delivery.submit(event) })
        case .completed:
            locked.withLock { $0.isSourceDone = true }
            // The source is finished; only the last sample is left to deliver.
            sourceSubscription.dispose()
        }
    }

    func onSampler<Tick>(_ event: Event<Tick>) {
        if event.isStopEvent {
            guard samplerGate.close() else { return }
        } else {
            guard samplerGate.isOpen else { return }
        }
        switch event {
        case .next, .completed:
            let first = locked.withLock { state -> Event<Element>? in
                var first: Event<Element>?
                if let latest = state.latest {
                    state.latest = nil
                    first = state.delivery.submit(.next(latest))
                } else if let defaultValue {
                    first = state.delivery.submit(.next(defaultValue))
                }
                if state.isSourceDone {
                    // Queued behind the element if there is one: `submit` hands back only
                    // the event the caller must deliver first.
                    let completed = state.delivery.submit(.completed)
                    first = first ?? completed
                }
                return first
            }
            deliver(first)
            if event.isCompleted {
                // No more ticks: release the sampler, as RxSwift does when its source ends.
                samplerSubscription.dispose()
            }
        case .error(let error):
            deliver(locked.withLock { $0.delivery.submit(.error(error)) })
        }
    }

    private func deliver(_ first: Event<Element>?) {
        locked.drain(startingWith: first, queue: \.delivery) { forwardEvent($0) }
    }

    override func didDispose() {
        sourceSubscription.dispose()
        samplerSubscription.dispose()
    }
}
