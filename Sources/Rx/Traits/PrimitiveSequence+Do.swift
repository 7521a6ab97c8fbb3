/// The side effects of a trait `do`, one optional action per kind of event.
struct TraitDoHandlers<Element>: Sendable {
    var onNext: (@Sendable (Element) throws -> Void)?
    var afterNext: (@Sendable (Element) throws -> Void)?
    var onError: (@Sendable (Swift.Error) throws -> Void)?
    var afterError: (@Sendable (Swift.Error) throws -> Void)?
    var onCompleted: (@Sendable () throws -> Void)?
    var afterCompleted: (@Sendable () throws -> Void)?
    var onSubscribe: (@Sendable () -> Void)?
    var onSubscribed: (@Sendable () -> Void)?
    var onDispose: (@Sendable () -> Void)?
}

extension Observable {
    /// `do` for traits (the `Observable` operator is not ours to write): RxSwift's order
    /// of side effects, which is `onSubscribe`, the source's synchronous events,
    /// `onSubscribed`; for each event the `on…` action, delivery, the `after…` action;
    /// and `onDispose` last of all.
    static func traitDo(_ source: Observable<Element>, _ handlers: TraitDoHandlers<Element>) -> Observable<Element> {
        make { observer in
            handlers.onSubscribe?()
            let sink = TraitDoSink(handlers: handlers, downstream: observer)
            sink.enterSection()
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            handlers.onSubscribed?()
            sink.exitSection()
            return sink
        }
    }
}

/// One subscription of a trait `do`.
///
/// `onDispose` must come after the `after…` action of the event that caused the disposal
/// and after `onSubscribed`, as in RxSwift, although here the disposal happens during
/// delivery. So subscribing and delivering are "sections"; a disposal inside one only
/// marks `onDispose` due, and the last section to end runs it.
final class TraitDoSink<Element>: Sink<Element>, @unchecked Sendable {
    private let handlers: TraitDoHandlers<Element>
    /// Low byte: sections in progress. 256: disposed. 512: `onDispose` has been claimed.
    private let sections = AtomicInt(0)

    init(handlers: TraitDoHandlers<Element>, downstream: AnyObserver<Element>) {
        self.handlers = handlers
        super.init(downstream: downstream)
    }

    func enterSection() {
        _ = sections.add(1)
    }

    func exitSection() {
        let now = sections.add(-1)
        if now & 255 == 0 && now & 256 != 0 { runOnDispose() }
    }

    override func didDispose() {
        if sections.fetchOr(256) & 255 == 0 { runOnDispose() }
    }

    private func runOnDispose() {
        if sections.fetchOr(512) & 512 == 0 { handlers.onDispose?() }
    }

    func on(_ event: Event<Element>) {
        enterSection()
        defer { exitSection() }
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            do {
                try handlers.onNext?(element)
            } catch {
                forwardTerminal(.error(error))
                return
            }
            forward(event)
            do {
                try handlers.afterNext?(element)
            } catch {
                forwardTerminal(.error(error))
            }
        case .error(let error):
            do {
                try handlers.onError?(error)
            } catch {
                forwardTerminal(.error(error))
                return
            }
            forwardTerminal(event)
            // An error thrown after the terminal event has nowhere to go: the sequence is over.
            try? handlers.afterError?(error)
        case .completed:
            do {
                try handlers.onCompleted?()
            } catch {
                forwardTerminal(.error(error))
                return
            }
            forwardTerminal(event)
            try? handlers.afterCompleted?()
        }
    }
}
