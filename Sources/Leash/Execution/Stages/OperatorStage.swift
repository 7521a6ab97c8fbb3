import Foundation
import Rx

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The operator interceptors' stage: an attempt's outcomes as an observable, each
/// operator interceptor composed on it in the order added, and the result handed to the
/// execution (`Output`). Only executions whose manager has operator interceptors pass
/// here; the others hand outcomes from the attempt to the execution directly.
enum OperatorStage {
    /// Attempt `number`'s outcomes (each subscription runs the attempt), through every
    /// operator interceptor.
    static func outcomes(
        of execution: Execution, attempt number: Int, request: Result<URLRequest, Swift.Error>,
        context: ExecutionContext
    ) -> Observable<Response<Data>> {
        let source = AttemptOutcomes(execution: execution, number: number, request: request, context: context)
        return execution.interceptors.operators.reduce(source.asObservable()) { stream, interceptor in
            interceptor.intercept(stream, context: context)
        }
    }

    /// Hands what the operator interceptors emit to the execution: values (serialized
    /// next), the end of the attempt, a retry (`context.retry()`), or a failure.
    final class Output: ObserverType, @unchecked Sendable {
        // @unchecked: immutable.
        let execution: Execution
        let attempt: Int
        /// The attempt's context, which the serialization interceptors see.
        let context: ExecutionContext

        init(execution: Execution, attempt: Int, context: ExecutionContext) {
            self.execution = execution
            self.attempt = attempt
            self.context = context
        }

        func on(_ event: Event<Response<Data>>) {
            switch event {
            case .next(let response):
                execution.attempt(attempt, produced: response, context: context)
            case .completed:
                execution.attemptFinished(attempt)
            case .error(let signal as RetrySignal):
                execution.retry(signal, from: attempt)
            case .error(let error):
                if execution.isCurrent(attempt) { execution.finish(error) }
            }
        }
    }
}

/// One attempt as an observable of its outcomes: each subscription runs the attempt anew
/// (an operator may subscribe more than once), and disposing stops it.
private struct AttemptOutcomes: ObservableType, @unchecked Sendable {
    // @unchecked: immutable; the request and context are immutable values.
    typealias Element = Response<Data>

    let execution: Execution
    let number: Int
    let request: Result<URLRequest, Swift.Error>
    let context: ExecutionContext

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Response<Data> {
        let attempt = Attempt(
            execution: execution, number: number, context: context, output: ObserverOutput(AnyObserver(observer)))
        attempt.begin(request)
        return attempt
    }
}

/// An attempt's outcomes to an observer: the operator interceptors' upstream.
///
/// Interceptors call back from any thread, and an interim value may race the outcome
/// being completed: events go to the observer one at a time, through a `DeliveryLine`.
private final class ObserverOutput: AttemptOutput, @unchecked Sendable {
    // @unchecked: `observer` is touched only by the thread holding the line's delivering
    // role.
    private var observer: AnyObserver<Response<Data>>?
    private let line = LockedState(DeliveryLine<Event<Response<Data>>>())

    init(_ observer: AnyObserver<Response<Data>>) {
        self.observer = observer
    }

    func attempt(_ number: Int, produced response: Response<Data>, context: ExecutionContext) {
        line.deliver(.next(response), hand: hand, release: release)
    }

    func attemptFinished(_ number: Int) {
        line.deliver(.completed, closing: true, hand: hand, release: release)
    }

    private func hand(_ event: Event<Response<Data>>) {
        observer?.on(event)
    }

    private func release() {
        observer = nil
    }
}
