extension ObservableType {
    /// A sequence produced by a state-driven loop: it emits `initialState`, then
    /// `iterate(state)` after each element, for as long as `condition` holds, and then
    /// completes. An error thrown by `condition` or `iterate` ends the sequence with it.
    ///
    /// With the default scheduler the loop runs on the current thread's trampoline and
    /// stops as soon as the subscription is disposed (so `generate(…).take(3)` terminates
    /// even when `condition` is always true); with another scheduler each element is one
    /// scheduled step.
    ///
    /// - Parameters:
    ///   - initialState: The first state, emitted first if `condition` holds for it.
    ///   - condition: Whether the loop goes on with a state; `false` completes the sequence.
    ///   - scheduler: Where the loop runs.
    ///   - iterate: The state after a given one.
    public static func generate(
        initialState: Element,
        condition: @escaping @Sendable (Element) throws -> Bool,
        scheduler: ImmediateSchedulerType = CurrentThreadScheduler.instance,
        iterate: @escaping @Sendable (Element) throws -> Element
    ) -> Observable<Element> {
        Observable<Element>.generating(
            initialState: initialState, condition: condition, iterate: iterate, resultSelector: { $0 },
            scheduler: scheduler)
    }
}

extension Observable {
    /// The loop behind `generate`, `range` and `repeatElement`: each step emits
    /// `resultSelector(state)` while `condition(state)` holds.
    static func generating<State>(
        initialState: State,
        condition: @escaping @Sendable (State) throws -> Bool,
        iterate: @escaping @Sendable (State) throws -> State,
        resultSelector: @escaping @Sendable (State) throws -> Element,
        scheduler: ImmediateSchedulerType
    ) -> Observable<Element> {
        // The initial state is a value the caller handed over; each subscription copies it.
        let initial = UncheckedSendable(initialState)
        if scheduler is CurrentThreadScheduler {
            return make { observer in
                let sink = GenerateSink(
                    condition: condition, iterate: iterate, resultSelector: resultSelector, downstream: observer)
                // Queued behind the subscription in progress, so the whole chain is wired
                // (and can dispose us) before the first element.
                CurrentThreadScheduler.trampoline { sink.runLoop(from: initial.value) }
                return sink
            }
        }
        return make { observer in
            let sink = GenerateSink(
                condition: condition, iterate: iterate, resultSelector: resultSelector, downstream: observer)
            sink.attach(
                scheduler.scheduleRecursive((initial.value, true)) { step, recurse in
                    var state = step.0
                    if sink.step(&state, isFirst: step.1) { recurse((state, false)) }
                })
            return sink
        }
    }
}

/// Runs one subscription of a `generate`-style loop.
///
/// Sendable: the loop state lives on the stack of the running step; steps never overlap.
final class GenerateSink<State, Element>: Sink<Element>, @unchecked Sendable {
    private let condition: @Sendable (State) throws -> Bool
    private let iterate: @Sendable (State) throws -> State
    private let resultSelector: @Sendable (State) throws -> Element

    init(
        condition: @escaping @Sendable (State) throws -> Bool,
        iterate: @escaping @Sendable (State) throws -> State,
        resultSelector: @escaping @Sendable (State) throws -> Element,
        downstream: AnyObserver<Element>
    ) {
        self.condition = condition
        self.iterate = iterate
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    /// Runs every step now, checking for disposal before each one.
    func runLoop(from initialState: State) {
        var state = initialState
        var isFirst = true
        while !isStoppedOrDisposed && step(&state, isFirst: isFirst) {
            isFirst = false
        }
    }

    /// Advances `state` (unless it is the first), then emits it or ends the sequence.
    /// Returns whether the loop goes on.
    func step(_ state: inout State, isFirst: Bool) -> Bool {
        guard !isStoppedOrDisposed else { return false }
        do {
            if !isFirst { state = try iterate(state) }
            if try condition(state) {
                forward(.next(try resultSelector(state)))
                return true
            }
            forwardTerminal(.completed)
        } catch {
            forwardTerminal(.error(error))
        }
        return false
    }
}
