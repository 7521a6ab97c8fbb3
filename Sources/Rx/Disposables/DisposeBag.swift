/// Collects disposables and disposes them all when the bag is freed.
///
/// ```swift
/// let disposeBag = DisposeBag()
/// observable.subscribe(onNext: { print($0) }).disposed(by: disposeBag)
/// ```
///
/// To cancel everything early, replace the bag: `disposeBag = DisposeBag()`.
public final class DisposeBag: Sendable {
    private let state = LockedState<[Disposable]?>([])

    /// Creates an empty bag.
    public init() {}

    /// Creates a bag holding `disposables`.
    public convenience init(disposing disposables: Disposable...) {
        self.init(disposing: disposables)
    }

    /// Creates a bag holding `disposables`.
    public init(disposing disposables: [Disposable]) {
        state.withLock { $0 = disposables }
    }

    /// Adds `disposable`; if the bag is already disposing, disposes it at once.
    public func insert(_ disposable: Disposable) {
        let added = state.withLock { disposables -> Bool in
            guard disposables != nil else { return false }
            disposables?.append(disposable)
            return true
        }
        if !added { disposable.dispose() }
    }

    /// Adds each of `disposables`.
    public func insert(_ disposables: Disposable...) {
        insert(disposables)
    }

    /// Adds each of `disposables`.
    public func insert(_ disposables: [Disposable]) {
        for disposable in disposables { insert(disposable) }
    }

    private func dispose() {
        let disposables = state.withLock { disposables -> [Disposable] in
            defer { disposables = nil }
            return disposables ?? []
        }
        for disposable in disposables { disposable.dispose() }
    }

    deinit {
        dispose()
    }
}
