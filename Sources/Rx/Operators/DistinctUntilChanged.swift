/// What `distinctUntilChanged` needs of the values it compares with `==`: `Equatable`,
/// through a conformance that is not isolated to an actor, because the comparison runs
/// on whichever thread the source emits on.
///
/// Concrete types qualify unless their `Equatable` conformance is actor-isolated (for
/// example inferred `@MainActor` under default main-actor isolation); mark such a
/// conformance `nonisolated`. Generic code adds `SendableMetatype` to its `Equatable`
/// constraint.
public typealias DistinctUntilChangedEquatable = Equatable & SendableMetatype

extension ObservableType where Element: DistinctUntilChangedEquatable {
    /// Only the elements that differ from the element before them (by `==`).
    ///
    /// The first element always goes through; each later one goes through only when it is
    /// not equal to the last element that went through.
    public func distinctUntilChanged() -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = DistinctUntilChangedEquatableSink(downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }
}

extension ObservableType {
    /// Only the elements whose key differs from the key of the element before them.
    ///
    /// - Parameter keySelector: Computes the key compared with `==`. A thrown error ends the
    ///   sequence with that error.
    public func distinctUntilChanged<Key: DistinctUntilChangedEquatable>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key
    )
        -> Observable<Element>
    {
        distinctUntilChanged(keySelector, comparer: { $0 == $1 })
    }

    /// Only the elements that `comparer` does not find equal to the element before them.
    ///
    /// - Parameter comparer: Called with the last forwarded element and the new one; `true`
    ///   means "equal", so the new one is dropped. A thrown error ends the sequence.
    public func distinctUntilChanged(_ comparer: @escaping @Sendable (Element, Element) throws -> Bool)
        -> Observable<Element>
    {
        distinctUntilChanged({ $0 }, comparer: comparer)
    }

    /// Only the elements whose key `comparer` does not find equal to the key of the element
    /// before them.
    ///
    /// - Parameters:
    ///   - keySelector: Computes each element's key.
    ///   - comparer: Called with the last forwarded key and the new one; `true` means
    ///     "equal", so the new element is dropped.
    ///
    /// An error thrown by either closure ends the sequence with that error.
    public func distinctUntilChanged<Key>(
        _ keySelector: @escaping @Sendable (Element) throws -> Key,
        comparer: @escaping @Sendable (Key, Key) throws -> Bool
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable<Element>.make { observer in
            let sink = DistinctUntilChangedSink(keySelector: keySelector, comparer: comparer, downstream: observer)
            sink.attach(source.run(AnyObserver { sink.on($0) }))
            return sink
        }
    }

    /// Only the elements whose property at `keyPath` differs (by `==`) from that of the
    /// element before them.
    ///
    /// The key path is read on whichever thread the source emits on, hence `Sendable`; a key
    /// path literal such as `\.name` is.
    public func distinctUntilChanged<Property: DistinctUntilChangedEquatable>(
        at keyPath: KeyPath<Element, Property> & Sendable
    ) -> Observable<Element> {
        distinctUntilChanged({ $0[keyPath: keyPath] }, comparer: { $0 == $1 })
    }
}

/// `distinctUntilChanged()` for `Equatable` elements: compares elements directly, with no
/// key selector or comparer closure in between.
final class DistinctUntilChangedEquatableSink<Element: Equatable>: Sink<Element>, @unchecked Sendable {
    // Sendable: `last` is only touched by upstream events, which arrive serially.
    private var last: Element?

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            if let last, last == element { return }
            // Stored before forwarding, so that an element sent back in from downstream is
            // compared with this one.
            last = element
            forward(event)
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}

final class DistinctUntilChangedSink<Element, Key>: Sink<Element>, @unchecked Sendable {
    // Sendable: `currentKey` is only touched by upstream events, which arrive serially.
    private let keySelector: @Sendable (Element) throws -> Key
    private let comparer: @Sendable (Key, Key) throws -> Bool
    private var currentKey: Key?

    init(
        keySelector: @escaping @Sendable (Element) throws -> Key,
        comparer: @escaping @Sendable (Key, Key) throws -> Bool,
        downstream: AnyObserver<Element>
    ) {
        self.keySelector = keySelector
        self.comparer = comparer
        super.init(downstream: downstream)
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            guard !isStoppedOrDisposed else { return }
            do {
                let key = try keySelector(element)
                if let currentKey, try comparer(currentKey, key) { return }
                currentKey = key
            } catch {
                forwardTerminal(.error(error))
                return
            }
            forward(event)
        case .error, .completed:
            forwardTerminal(event)
        }
    }
}
