extension DisposeBag {
    /// Builds the disposables of `DisposeBag { … }` and `insert { … }`, one per line, as in
    /// RxSwift 6:
    ///
    /// ```swift
    /// let disposeBag = DisposeBag {
    ///     names.bind(to: label)
    ///     taps.subscribe(onNext: { print("tap") })
    /// }
    /// ```
    @resultBuilder
    public enum DisposableBuilder {
        /// The disposables of a block, in order.
        public static func buildBlock(_ disposables: [Disposable]...) -> [Disposable] {
            disposables.flatMap { $0 }
        }

        /// One disposable, as a line of a block.
        public static func buildExpression(_ disposable: Disposable) -> [Disposable] {
            [disposable]
        }

        /// The disposables of an `if` without `else`, if it ran.
        public static func buildOptional(_ disposables: [Disposable]?) -> [Disposable] {
            disposables ?? []
        }

        /// The disposables of the branch of an `if`/`else` or `switch` that ran.
        public static func buildEither(first disposables: [Disposable]) -> [Disposable] {
            disposables
        }

        /// The disposables of the branch of an `if`/`else` or `switch` that ran.
        public static func buildEither(second disposables: [Disposable]) -> [Disposable] {
            disposables
        }

        /// The disposables of every pass of a `for` loop.
        public static func buildArray(_ disposables: [[Disposable]]) -> [Disposable] {
            disposables.flatMap { $0 }
        }
    }

    /// Creates a bag holding the disposables `builder` lists.
    public convenience init(@DisposableBuilder builder: () -> [Disposable]) {
        self.init(disposing: builder())
    }

    /// Adds the disposables `builder` lists; if the bag is already disposing, disposes
    /// them at once.
    public func insert(@DisposableBuilder builder: () -> [Disposable]) {
        insert(builder())
    }
}
