extension ObservableType where Element: InnerObservableConvertibleType {
    /// Emits the elements of the most recent inner sequence only.
    ///
    /// When the source emits a new inner sequence, the previous one is unsubscribed before
    /// the new one is subscribed. Completes once the source has completed and the latest
    /// inner sequence (if any is running) has completed; an error from the source or from
    /// the latest inner sequence ends the sequence at once. The source is unsubscribed as
    /// soon as it completes.
    public func switchLatest() -> Observable<Element.Element> {
        switchLatestInner(asObservable())
    }
}

private func switchLatestInner<Inner: InnerObservableConvertibleType>(_ source: Observable<Inner>)
    -> Observable<Inner.Element>
{
    Observable<Inner.Element>.make { observer in
        let sink = SwitchLatestSink<Inner>(downstream: observer)
        sink.run(source)
        return sink
    }
}

/// The sink of `switchLatest`.
///
/// Each inner subscription gets an id; events of an inner sequence that is no longer the
/// latest are dropped. Events from the source and the latest inner sequence, which may
/// come from different threads, are serialised through one `DeliveryLine`.
final class SwitchLatestSink<Inner: ObservableConvertibleType>: Sink<Inner.Element>, @unchecked Sendable {
    // Sendable: mutable state is in `locked`, behind its lock.
    typealias Output = Inner.Element

    struct State {
        var delivery = DeliveryLine<Event<Output>>()
        var outer = CombiningSlot.pending
        /// The subscription of the latest inner sequence.
        var inner = CombiningSlot.finished
        /// The id of the latest inner sequence.
        var latest = 0
        /// Whether the latest inner sequence is still running.
        var hasLatest = false
        /// Whether the source has completed.
        var isStopped = false
    }

    let locked = LockedState(State())

    func run(_ source: Observable<Inner>) {
        let subscription = source.run(AnyObserver { [self] event in onOuter(event) })
        let late = locked.withLock { $0.outer.assign(subscription) }
        late?.dispose()
    }

    func onOuter(_ event: Event<Inner>) {
        switch event {
        case .next(let inner):
            let start = locked.withLock { state -> (id: Int, previous: Disposable?)? in
                // `isStopped`: a source that sends after completing is not listened to.
                guard !state.delivery.isClosed, !state.isStopped else { return nil }
                state.latest &+= 1
                state.hasLatest = true
                let previous = state.inner.finish()
                state.inner = .pending
                return (state.latest, previous)
            }
            guard let start else { return }
            start.previous?.dispose()
            let id = start.id
            let subscription = inner.asObservable().subscribe(AnyObserver { [self] event in onInner(event, id: id) })
            let late = locked.withLock { state -> Disposable? in
                // Superseded meanwhile: the newer inner sequence owns the slot now.
                state.latest == id ? state.inner.assign(subscription) : subscription
            }
            late?.dispose()
        case .error(let error):
            let first = locked.withLock { $0.isStopped ? nil : $0.delivery.submit(.error(error)) }
            if let first { deliver(startingWith: first) }
        case .completed:
            let (first, outer) = locked.withLock { state -> (Event<Output>?, Disposable?) in
                guard !state.isStopped else { return (nil, nil) }
                state.isStopped = true
                // RxSwift unsubscribes from the source as soon as it completes.
                let outer = state.outer.finish()
                return (state.hasLatest ? nil : state.delivery.submit(.completed), outer)
            }
            outer?.dispose()
            if let first { deliver(startingWith: first) }
        }
    }

    func onInner(_ event: Event<Output>, id: Int) {
        let (first, subscription) = locked.withLock { state -> (Event<Output>?, Disposable?) in
            // `hasLatest`: the latest sequence's completion ends it, whatever it sends after.
            guard state.latest == id, state.hasLatest else { return (nil, nil) }
            switch event {
            case .next:
                return (state.delivery.submit(event), nil)
            case .error:
                return (state.delivery.submit(event), state.inner.finish())
            case .completed:
                state.hasLatest = false
                let subscription = state.inner.finish()
                return (state.isStopped ? state.delivery.submit(.completed) : nil, subscription)
            }
        }
        subscription?.dispose()
        if let first { deliver(startingWith: first) }
    }

    /// Delivers `first` and whatever was queued behind it, outside the lock.
    func deliver(startingWith first: Event<Output>) {
        var event: Event<Output>? = first
        while let current = event {
            forwardEvent(current)
            event = locked.withLock { $0.delivery.next() }
        }
    }

    override func didDispose() {
        let (outer, inner) = locked.withLock { state in
            state.delivery.isClosed = true
            return (state.outer.finish(), state.inner.finish())
        }
        outer?.dispose()
        inner?.dispose()
    }
}
