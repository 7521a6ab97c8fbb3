extension ObservableType where Element: RxAbstractInteger {
    /// The integers 0, 1, 2, … one after each `period`, without end.
    ///
    /// - Parameters:
    ///   - period: The time before the first integer and between the next ones.
    ///   - scheduler: The scheduler that runs the timer.
    public static func interval(_ period: RxTimeInterval, scheduler: SchedulerType) -> Observable<Element> {
        timer(period, period: period, scheduler: scheduler)
    }

    /// 0 after `dueTime`; then, with a `period`, 1, 2, … one per period without end, and
    /// without one, `completed` right after the 0.
    ///
    /// A `dueTime` of `.never` never fires; a `period` of `.never` emits the 0 and stops.
    ///
    /// - Parameters:
    ///   - dueTime: The time before the first integer.
    ///   - period: The time between the next integers, or `nil` for a single one.
    ///   - scheduler: The scheduler that runs the timer.
    public static func timer(_ dueTime: RxTimeInterval, period: RxTimeInterval? = nil, scheduler: SchedulerType)
        -> Observable<Element>
    {
        Observable<Element>.make { observer in
            let sink = TimerSink<Element>(downstream: observer)
            sink.start(dueTime: dueTime, period: period, scheduler: scheduler)
            return sink
        }
    }
}

/// One subscription of `timer` / `interval`.
final class TimerSink<Element: RxAbstractInteger>: Sink<Element>, @unchecked Sendable {
    func start(dueTime: RxTimeInterval, period: RxTimeInterval?, scheduler: SchedulerType) {
        if timerIntervalIsNever(dueTime) { return }
        if let period, !timerIntervalIsNever(period) {
            attach(scheduler.schedulePeriodic(Element.zero, startAfter: dueTime, period: period) { self.tick($0) })
        } else {
            let completes = period == nil
            attach(
                scheduler.scheduleRelative((), dueTime: dueTime) { _ in
                    self.fireOnce(completes: completes)
                    return Disposables.create()
                })
        }
    }

    private func tick(_ value: Element) -> Element {
        forward(.next(value))
        return value &+ 1
    }

    private func fireOnce(completes: Bool) {
        forward(.next(Element.zero))
        if completes { forwardTerminal(.completed) }
    }
}

/// Whether `interval` is `.never`: work due then is never scheduled, since no scheduler can
/// represent that date.
func timerIntervalIsNever(_ interval: RxTimeInterval) -> Bool {
    if case .never = interval { return true }
    return false
}
