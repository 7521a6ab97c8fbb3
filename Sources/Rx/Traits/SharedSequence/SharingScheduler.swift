/// The scheduler that `Driver` and `Signal` deliver on: a new `MainScheduler()` for each
/// shared sequence, unless a test replaces it for a while with `mock(scheduler:action:)`.
///
/// A new one each time, as RxCocoa: a `MainScheduler` runs an action at once on the main
/// thread only while it runs nothing else, so with one scheduler shared by all, a Driver
/// driven from inside another Driver's delivery (a relay both drive) would queue behind it.
///
/// A shared sequence reads the scheduler once, when it is created (`asDriver`,
/// `Driver.just`, `debounce`…), so create the sequences under test inside `action`:
///
/// ```swift
/// let scheduler = TestScheduler(initialClock: 0)
/// SharingScheduler.mock(scheduler: scheduler) {
///     let results = scheduler.start { viewModel.results(for: queries) }
///     XCTAssertEqual(results.events, [.next(500, ["leash"])])
/// }
/// ```
public enum SharingScheduler {
    private static let factory = LockedState<@Sendable () -> SchedulerType>({ MainScheduler() })

    /// The scheduler that a shared sequence created now delivers on.
    public static func make() -> SchedulerType {
        factory.withLock { $0 }()
    }

    /// Runs `action` with `scheduler` as the scheduler of the shared sequences created
    /// meanwhile, then restores the previous one (also when `action` throws).
    ///
    /// Meant for tests. The replacement is global: shared sequences created on other
    /// threads while `action` runs use it too.
    public static func mock(scheduler: SchedulerType, action: () throws -> Void) rethrows {
        try mock(makeScheduler: { scheduler }, action: action)
    }

    /// Runs `action` with `makeScheduler` making the scheduler of each shared sequence
    /// created meanwhile, then restores the previous one (also when `action` throws).
    ///
    /// Meant for tests. The replacement is global: shared sequences created on other
    /// threads while `action` runs use it too.
    public static func mock(makeScheduler: @escaping @Sendable () -> SchedulerType, action: () throws -> Void)
        rethrows
    {
        let previous = factory.withLock { current in
            let previous = current
            current = makeScheduler
            return previous
        }
        defer { factory.withLock { $0 = previous } }
        try action()
    }
}
