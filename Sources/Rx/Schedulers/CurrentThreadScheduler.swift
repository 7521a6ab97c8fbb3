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
/// The trampoline lives in a pthread key: one lookup, no Foundation thread dictionary.
public final class CurrentThreadScheduler: ImmediateSchedulerType {
    /// The shared instance.
    public static let instance = CurrentThreadScheduler()

    private init() {}

    /// Whether no trampoline is running on this thread (scheduling would run at once).
    @inlinable
    public static var isScheduleRequired: Bool {
        trampolineSlot() == nil
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
        setTrampolineSlot(activeMarker)
        let result = body()
        // Nothing was queued (the usual case): the slot still holds the marker, so one read
        // and one write end the trampoline, without the draining loop.
        if trampolineSlot() == activeMarker {
            setTrampolineSlot(nil)
        } else {
            drainTrampoline()
        }
        return result
    }

    /// Runs `action` now if no trampoline runs on this thread (becoming it), otherwise
    /// queues it behind the work in progress.
    @inlinable
    static func trampoline(_ action: @escaping () -> Void) {
        if isScheduleRequired {
            runTrampolined(action)
        } else {
            enqueue(TrampolineItem(action))
        }
    }

    /// Marks "a trampoline is running and its queue is empty" without allocating one.
    @inlinable static var activeMarker: UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(bitPattern: 1).unsafelyUnwrapped
    }

    @usableFromInline
    static func enqueue(_ item: TrampolineItem) {
        let slot = trampolineSlot()
        let queue: TrampolineQueue
        if let slot, slot != activeMarker {
            queue = Unmanaged<TrampolineQueue>.fromOpaque(slot).takeUnretainedValue()
        } else {
            queue = TrampolineQueue()
            setTrampolineSlot(Unmanaged.passRetained(queue).toOpaque())
        }
        queue.items.append(item)
    }

    @usableFromInline
    static func drainTrampoline() {
        while true {
            guard let slot = trampolineSlot(), slot != activeMarker else { break }
            let queue = Unmanaged<TrampolineQueue>.fromOpaque(slot).takeUnretainedValue()
            guard queue.head < queue.items.count else { break }
            let item = queue.items[queue.head]
            queue.head += 1
            item.invoke()
        }
        if let slot = trampolineSlot(), slot != activeMarker {
            Unmanaged<TrampolineQueue>.fromOpaque(slot).release()
        }
        setTrampolineSlot(nil)
    }
}

/// The queue of a thread's trampoline. Only that thread touches it.
@usableFromInline
final class TrampolineQueue {
    var items: [TrampolineItem] = []
    var head = 0

    init() {}
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
    _ = pthread_key_create(&key, nil)
    return key
}()

@usableFromInline
func trampolineSlot() -> UnsafeMutableRawPointer? {
    pthread_getspecific(trampolineKey)
}

@usableFromInline
func setTrampolineSlot(_ value: UnsafeMutableRawPointer?) {
    _ = pthread_setspecific(trampolineKey, value)
}
