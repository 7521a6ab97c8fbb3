/// A disposable that an operator swaps over time (the current source of `retry`, the
/// pending timer of `delay`, the fallback of `timeout`), kept inside the operator's
/// `LockedState` instead of a `SerialDisposable` of its own, to save an allocation and a
/// lock per swap.
///
/// A disposable is installed for a *generation*: the caller takes a generation under the
/// lock, subscribes or schedules outside it, then installs the result under the lock
/// again. If the slot moved on meanwhile (a later generation, or disposal), `set` hands
/// the result back for the caller to dispose, so a late result never overwrites a newer
/// one nor outlives the operator. Every method returns the disposable to dispose, so that
/// the caller can dispose it after leaving the lock.
struct ErrorsDisposableSlot {
    private var current: Disposable?
    private var generation = 0
    private(set) var isDisposed = false

    init() {}

    /// Starts a new generation and keeps the current disposable until `set` replaces it.
    mutating func nextGeneration() -> Int {
        generation &+= 1
        return generation
    }

    /// Starts a new generation and removes the current disposable, which the caller
    /// disposes.
    mutating func advance() -> (generation: Int, previous: Disposable?) {
        generation &+= 1
        defer { current = nil }
        return (generation, current)
    }

    /// Installs `disposable` for `generation` (0 for the first one). Returns what the caller
    /// must dispose: the replaced disposable, or `disposable` itself when it came too late.
    mutating func set(_ disposable: Disposable, generation: Int) -> Disposable? {
        guard !isDisposed, generation == self.generation else { return disposable }
        defer { current = disposable }
        return current
    }

    /// Marks the slot disposed; returns the current disposable for the caller to dispose.
    mutating func dispose() -> Disposable? {
        isDisposed = true
        defer { current = nil }
        return current
    }
}
