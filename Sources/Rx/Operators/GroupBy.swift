extension ObservableType {
    /// Splits the sequence into groups of elements that share a key: emits a
    /// `GroupedObservable` when the first element of a key arrives, then routes each element
    /// to its group.
    ///
    /// Groups are hot: subscribe to a group as it is emitted to see its first element. The
    /// source stays subscribed while the outer subscription or any group subscription lives, so
    /// groups keep receiving elements after the outer subscription is disposed. A terminal event
    /// of the source, or an error thrown by `keySelector`, goes to every group and then
    /// downstream.
    ///
    /// - Parameter keySelector: Extracts the key of an element.
    public func groupBy<Key: Hashable>(keySelector: @escaping @Sendable (Element) throws -> Key)
        -> Observable<GroupedObservable<Key, Element>>
    {
        GroupByProducer(source: asObservable(), keySelector: keySelector)
    }
}

/// The elements of a sequence that share `key`, as emitted by `groupBy`.
public struct GroupedObservable<Key, Element>: ObservableType {
    /// The key shared by the elements of the group.
    public let key: Key

    private let source: Observable<Element>

    /// A group with `key` whose elements come from `source`.
    public init(key: Key, source: Observable<Element>) {
        self.key = key
        self.source = source
    }

    /// Subscribes `observer` to the elements of the group.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        source.subscribe(observer)
    }

    /// The elements of the group as an `Observable`.
    public func asObservable() -> Observable<Element> {
        source
    }
}

extension GroupedObservable: Sendable where Key: Sendable {}

/// The observable of `groupBy`: a subclass, because a `@Sendable` closure may not capture the
/// `Hashable` conformance of `Key`. Immutable, hence `Sendable`.
final class GroupByProducer<Key: Hashable, Element>: Observable<GroupedObservable<Key, Element>>,
    @unchecked Sendable
{
    private let source: Observable<Element>
    private let keySelector: @Sendable (Element) throws -> Key

    init(source: Observable<Element>, keySelector: @escaping @Sendable (Element) throws -> Key) {
        self.source = source
        self.keySelector = keySelector
        super.init()
    }

    override func run(_ observer: AnyObserver<GroupedObservable<Key, Element>>) -> Disposable {
        let sink = GroupBySink(keySelector: keySelector, downstream: observer)
        sink.run(source)
        return sink
    }
}

/// `groups`, `order` and `isTerminated` are confined by the grammar: only `on`, which the source calls
/// serially, touches them. The source subscription is behind its own lock, since the refcount
/// may release it from any thread.
final class GroupBySink<Key: Hashable, Element>: Sink<GroupedObservable<Key, Element>>, TransformingRefCountOwner,
    @unchecked Sendable
{
    private let keySelector: @Sendable (Element) throws -> Key
    private let refCount = TransformingRefCount()
    private var groups: [Key: PublishSubject<Element>] = [:]
    /// The groups in creation order, so that terminal events reach them in a stable order.
    private var order: [PublishSubject<Element>] = []
    private var isTerminated = false
    private let sourceSubscription = LockedState<(subscription: Disposable?, isReleased: Bool)>((nil, false))

    init(
        keySelector: @escaping @Sendable (Element) throws -> Key,
        downstream: AnyObserver<GroupedObservable<Key, Element>>
    ) {
        self.keySelector = keySelector
        super.init(downstream: downstream)
        refCount.setOwner(self)
    }

    func run(_ source: Observable<Element>) {
        // Disposing the outer subscription ends only its own hold on the source.
        attach(refCount)
        let subscription = source.run(AnyObserver { self.on($0) })
        let keep = sourceSubscription.withLock { upstream -> Bool in
            guard !upstream.isReleased else { return false }
            upstream.subscription = subscription
            return true
        }
        if !keep { subscription.dispose() }
    }

    func releaseUpstream() {
        let subscription = sourceSubscription.withLock { upstream -> Disposable? in
            upstream.isReleased = true
            defer { upstream.subscription = nil }
            return upstream.subscription
        }
        subscription?.dispose()
    }

    func on(_ event: Event<Element>) {
        switch event {
        case .next(let element):
            // No disposed check: groups still observed outlive the outer subscription.
            guard !isTerminated else { return }
            let key: Key
            do { key = try keySelector(element) } catch { return terminate(.error(error)) }
            if let group = groups[key] {
                group.on(.next(element))
                return
            }
            let group = PublishSubject<Element>()
            groups[key] = group
            order.append(group)
            let observable = TransformingRefCountedObservable(subject: group, refCount: refCount)
            forward(.next(GroupedObservable(key: key, source: observable)))
            group.on(.next(element))
        case .error, .completed:
            guard !isTerminated else { return }
            terminate(event)
        }
    }

    private func terminate(_ event: Event<Element>) {
        isTerminated = true
        let groups = order
        self.groups = [:]
        order = []
        for group in groups { group.on(event) }
        switch event {
        case .error(let error): forwardTerminal(.error(error))
        case .next, .completed: forwardTerminal(.completed)
        }
        // The source is done: release it even if groups are still subscribed.
        refCount.releaseNow()
    }
}
