import Foundation
import Rx

/// A tick of virtual time in `TestScheduler`.
public typealias TestTime = Int

/// A virtual-time scheduler for tests, with RxTest's API and timing.
///
/// Time is integer ticks. Hot observables emit at absolute ticks, cold ones relative to
/// each subscription. Work scheduled for now or the past runs one tick later
/// (`simulateProcessingDelay`), and work due at the same tick runs in the order it was
/// scheduled.
///
/// ```swift
/// let scheduler = TestScheduler(initialClock: 0)
/// let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(300)])
/// let res = scheduler.start { xs.map { $0 * 10 } }
/// XCTAssertEqual(res.events, [.next(210, 10), .next(220, 20), .completed(300)])
/// XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
/// ```
public final class TestScheduler: VirtualTimeScheduler<TestSchedulerVirtualTimeConverter>, @unchecked Sendable {
    // Sendable: the base class keeps its state behind a lock; `simulateProcessingDelay`
    // is immutable.

    /// The default times of `start`.
    public enum Defaults {
        /// When the observable is created: 100.
        public static let created: TestTime = 100
        /// When it is subscribed: 200.
        public static let subscribed: TestTime = 200
        /// When the subscription is disposed: 1000.
        public static let disposed: TestTime = 1000
    }

    private let simulateProcessingDelay: Bool

    /// Creates a test scheduler.
    ///
    /// - Parameters:
    ///   - initialClock: The starting tick.
    ///   - resolution: Seconds per tick, for real-time operators such as `delay(.seconds(5))`.
    ///   - simulateProcessingDelay: Whether work scheduled for now or the past runs one tick later.
    public init(initialClock: TestTime, resolution: Double = 1.0, simulateProcessingDelay: Bool = true) {
        self.simulateProcessingDelay = simulateProcessingDelay
        super.init(
            initialClock: initialClock, converter: TestSchedulerVirtualTimeConverter(resolution: resolution))
        actionLimit = 1_000_000
    }

    /// The most actions one `start()` runs: past it, the work is taken for a runaway
    /// (something that schedules itself for ever, such as an interval, a WebSocket's
    /// keepalive pings or a reconnect policy left running), and `start()` stops and says so
    /// on standard error instead of hanging. `nil`: no limit. Default 1,000,000, far more
    /// than a test schedules on purpose.
    public var maximumActionsPerStart: Int? {
        get { actionLimit }
        set { actionLimit = newValue }
    }

    /// Moves work due now or earlier one tick later when simulating processing delay.
    public override func adjustScheduledTime(_ time: TestTime) -> TestTime {
        time <= clock ? clock + (simulateProcessingDelay ? 1 : 0) : time
    }

    /// A hot observable emitting `events` at their absolute times.
    public func createHotObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        HotObservable(scheduler: self, recordedEvents: events)
    }

    /// A cold observable emitting `events` relative to each subscription.
    public func createColdObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        ColdObservable(scheduler: self, recordedEvents: events)
    }

    /// An observer recording events with their times.
    public func createObserver<Element>(_ type: Element.Type) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// Runs `action` at the absolute time `time`.
    public func scheduleAt(_ time: TestTime, action: @escaping () -> Void) {
        let box = UncheckedSendable(action)
        _ = scheduleAbsoluteVirtual((), time: time) { _ in
            box.value()
            return Disposables.create()
        }
    }

    /// Creates the observable at `created`, subscribes at `subscribed`, disposes at
    /// `disposed`, runs the scheduler, and returns what the observer recorded.
    public func start<Element, Source: ObservableConvertibleType>(
        created: TestTime, subscribed: TestTime, disposed: TestTime, create: @escaping () -> Source
    ) -> TestableObserver<Element> where Source.Element == Element {
        let observer = createObserver(Element.self)
        let run = StartRun<Element>()
        scheduleAt(created) { run.source = create().asObservable() }
        scheduleAt(subscribed) { run.subscription = run.source?.subscribe(observer) }
        scheduleAt(disposed) { run.subscription?.dispose() }
        start()
        return observer
    }

    /// `start` with the default creation and subscription times.
    public func start<Element, Source: ObservableConvertibleType>(
        disposed: TestTime, create: @escaping () -> Source
    ) -> TestableObserver<Element> where Source.Element == Element {
        start(created: Defaults.created, subscribed: Defaults.subscribed, disposed: disposed, create: create)
    }

    /// `start` with the default times (100, 200, 1000).
    public func start<Element, Source: ObservableConvertibleType>(_ create: @escaping () -> Source)
        -> TestableObserver<Element> where Source.Element == Element
    {
        start(
            created: Defaults.created, subscribed: Defaults.subscribed, disposed: Defaults.disposed,
            create: create)
    }
}

/// The observable and subscription of one `start` call; used on the driving thread only.
private final class StartRun<Element> {
    var source: Observable<Element>?
    var subscription: Disposable?
}
