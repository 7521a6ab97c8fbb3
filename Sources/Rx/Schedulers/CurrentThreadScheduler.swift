#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Runs work on the current thread, after the work already running there finishes (a
/// trampoline).
///
/// The first `schedule` on a thread runs its action at once and then drains everything
/// scheduled meanwhile; a `schedule` from inside queues the action. Subscriptions use
/// it so that synchronous sources start emitting only when the whole chain is wired up.
///
/// Each thread that uses it gets one `Trampoline`, found through a pthread key (freed when
/// the thread exits): entering and leaving the trampoline are then a flag written in that
/// object, and a subscription costs one thread-local read instead of four thread-local
/// reads and writes.
public final class CurrentThreadScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = CurrentThreadScheduler()

    private init() {}

    /// Whether no trampoline is running on this thread (scheduling would run at once).
    @inlinable
    public static var isScheduleRequired: Bool {
        guard let slot = trampolineSlot() else { return true }
        return !Unmanaged<Trampoline>.fromOpaque(slot).takeUnretainedValue().isRunning
    }

    /// Schedules `action` on the current thread's trampoline.
    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable)
        -> Disposable
    {
        if CurrentThreadScheduler.isScheduleRequired {
            return CurrentThreadScheduler.runTrampolined { action(state) }
        }
        let item = TrampolineItem { _ = action(state) }
        CurrentThreadScheduler.enqueue(item)
        return item
    }

    /// Runs `body` as the trampoline of this thread, then drains what it queued.
    /// Must be called only when `isScheduleRequired` is true.
    @inlinable
    static func runTrampolined<Result>(_ body: () -> Result) -> Result {
        Trampoline.current().run(body)
    }

    /// Runs `body` on this thread's trampoline: at once if one is running, otherwise as the
    /// trampoline, which then drains what `body` queued. The same as
    /// `isScheduleRequired ? runTrampolined(body) : body()`, with one thread-local read.
    @inlinable
    static func withTrampoline<Result>(_ body: () -> Result) -> Result {
        guard let slot = trampolineSlot() else { return Trampoline.makeCurrent().run(body) }
        // The thread's slot keeps its trampoline alive: borrowed, not retained around `body`.
        let trampoline = Unmanaged<Trampoline>.fromOpaque(slot)
        if trampoline._withUnsafeGuaranteedRef({ $0.isRunning }) { return body() }
        return trampoline._withUnsafeGuaranteedRef { $0.run(body) }
    }

    /// Runs `action` now if no trampoline runs on this thread (becoming it), otherwise
    /// queues it behind the work in progress.
    @inlinable
    static func trampoline(_ action: @escaping () -> Void) {
        let trampoline = Trampoline.current()
        if trampoline.isRunning {
            trampoline.enqueue(TrampolineItem(action))
        } else {
            trampoline.run(action)
        }
    }

    /// Queues `item` behind the work in progress. Must be called only while a trampoline
    /// runs on this thread.
    @usableFromInline
    static func enqueue(_ item: TrampolineItem) {
        Trampoline.current().enqueue(item)
    }
}

/// The trampoline of one thread: whether it is running, and the work queued on it. Only
/// that thread touches it, so its fields need neither a lock nor exclusivity checks.
@usableFromInline
final class Trampoline {
    @exclusivity(unchecked) @usableFromInline var isRunning = false
    @exclusivity(unchecked) @usableFromInline var items: [TrampolineItem] = []
    @exclusivity(unchecked) @usableFromInline var head = 0

    @usableFromInline
    init() {}

    /// This thread's trampoline, made on first use.
    @inlinable
    static func current() -> Trampoline {
        if let slot = trampolineSlot() {
            return Unmanaged<Trampoline>.fromOpaque(slot).takeUnretainedValue()
        }
        return makeCurrent()
    }

    /// Makes this thread's trampoline; the pthread key's destructor releases it.
    @usableFromInline
    static func makeCurrent() -> Trampoline {
        let trampoline = Trampoline()
        setTrampolineSlot(Unmanaged.passRetained(trampoline).toOpaque())
        return trampoline
    }

    /// Runs `body` as this thread's trampoline (not running yet), then drains what it
    /// queued.
    @inlinable
    func run<Result>(_ body: () -> Result) -> Result {
        isRunning = true
        let result = body()
        if head < items.count { drain() }
        isRunning = false
        return result
    }

    @usableFromInline
    func enqueue(_ item: TrampolineItem) {
        items.append(item)
    }

    /// Runs the queued work in order, including work queued meanwhile; still running.
    @usableFromInline
    func drain() {
        while head < items.count {
            let item = items[head]
            head += 1
            item.invoke()
        }
        items = []
        head = 0
    }
}

/// Work queued on a trampoline; disposing it before it runs cancels it.
@usableFromInline
final class TrampolineItem: RxResource, Cancelable, @unchecked Sendable {
    private let action: LockedState<(() -> Void)?>

    @usableFromInline
    init(_ action: @escaping () -> Void) {
        self.action = LockedState(action)
        super.init()
    }

    @usableFromInline var isDisposed: Bool { action.withLock { $0 == nil } }

    func invoke() {
        let work = action.withLock { action -> (() -> Void)? in
            defer { action = nil }
            return action
        }
        work?()
    }

    @usableFromInline func dispose() {
        action.withLock { $0 = nil }
    }
}

private let trampolineKey: pthread_key_t = {
    var key = pthread_key_t()
    // The parameter's optionality differs between platforms; the closure adapts to either.
    _ = pthread_key_create(&key) { pointer in releaseTrampoline(pointer) }
    return key
}()

/// Releases a thread's `Trampoline` when the thread exits.
private func releaseTrampoline(_ pointer: UnsafeMutableRawPointer?) {
    guard let pointer else { return }
    Unmanaged<Trampoline>.fromOpaque(pointer).release()
}

@usableFromInline
func trampolineSlot() -> UnsafeMutableRawPointer? {
    pthread_getspecific(trampolineKey)
}

@usableFromInline
func setTrampolineSlot(_ value: UnsafeMutableRawPointer?) {
    _ = pthread_setspecific(trampolineKey, value)
}
