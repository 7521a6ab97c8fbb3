import Rx
import RxTesting
import XCTest

/// A source that ignores the Rx grammar: it sends every event a test schedules to every
/// observer it ever had, after a terminal event or a disposal too, and records when each
/// of its subscriptions was disposed (in the scheduler's virtual time).
///
/// Operators must let nothing through after the first terminal event they act on, and
/// must dispose a source once its terminal event has been handled.
final class GrammarBreakingSource<Element: Sendable>: ObservableType, ReleasableSource, @unchecked Sendable {
    // Unchecked: used only on the test scheduler's thread.
    private let scheduler: TestScheduler
    private var observers: [AnyObserver<Element>] = []
    /// The virtual times at which subscriptions were made.
    private(set) var subscribedAt: [TestTime] = []
    /// The virtual times at which subscriptions were disposed.
    private(set) var disposedAt: [TestTime] = []

    /// A source that sends `events` at their times, whatever came before.
    init(scheduler: TestScheduler, _ events: [Recorded<Event<Element>>]) {
        self.scheduler = scheduler
        for recorded in events {
            scheduler.scheduleAt(recorded.time) { [unowned self] in
                for observer in observers { observer.on(recorded.value) }
            }
        }
    }

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Element {
        observers.append(AnyObserver(observer))
        subscribedAt.append(scheduler.clock)
        return Disposables.create { [self] in disposedAt.append(scheduler.clock) }
    }

    /// Drops the observers, which hold the operators' sinks.
    func release() {
        observers.removeAll()
    }
}

/// A test source that holds its observers until released.
protocol ReleasableSource: AnyObject {
    /// Drops the observers.
    func release()
}

/// Runs `makeResult` over `scheduler` and releases the sources afterwards, so that the
/// sinks they still hold are freed before the leak check.
func recordIgnoringGrammar<Source: ObservableConvertibleType>(
    _ scheduler: TestScheduler, sources: [any ReleasableSource], _ makeResult: @escaping () -> Source
) -> TestableObserver<Source.Element> {
    let result = scheduler.start(makeResult)
    for source in sources { source.release() }
    return result
}
