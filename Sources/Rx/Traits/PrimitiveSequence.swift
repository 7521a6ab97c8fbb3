/// An observable sequence with a restricted shape, described by `Trait`: `Single` (exactly
/// one element or an error), `Maybe` (at most one element) or `Completable` (no elements).
///
/// It wraps an `Observable` whose events keep to the trait's grammar, so converting back
/// with `asObservable()` costs nothing. Build one with the trait's factories
/// (`Single.just`, `Maybe.create`, …) or from an observable (`asSingle()`, `asMaybe()`,
/// `asCompletable()`).
///
/// ```swift
/// let user: Single<User> = client.rx.execute(GetUser(id: 1))
/// user.map(\.name).subscribe(onSuccess: { print($0) }, onFailure: { print($0) })
/// ```
public struct PrimitiveSequence<Trait, Element>: Sendable {
    @usableFromInline let source: Observable<Element>

    /// Wraps `raw`, whose events the caller guarantees keep to `Trait`'s grammar.
    @inlinable
    init(raw: Observable<Element>) {
        source = raw
    }
}

/// A type that is a primitive sequence (`Single`, `Maybe`, `Completable`): the trait
/// operators are written against this protocol, as in RxSwift.
public protocol PrimitiveSequenceType {
    /// The trait: `SingleTrait`, `MaybeTrait` or `CompletableTrait`.
    associatedtype Trait

    /// The type of the element.
    associatedtype Element

    /// This value as a `PrimitiveSequence`.
    var primitiveSequence: PrimitiveSequence<Trait, Element> { get }
}

extension PrimitiveSequence: PrimitiveSequenceType {
    /// This sequence.
    @inlinable
    public var primitiveSequence: PrimitiveSequence<Trait, Element> { self }
}

extension PrimitiveSequence: ObservableConvertibleType {
    /// The sequence as an `Observable`, with the same events.
    @inlinable
    public func asObservable() -> Observable<Element> { source }
}

extension PrimitiveSequence {
    /// A sequence made anew by `observableFactory` for each subscription. A thrown error
    /// becomes the sequence's error.
    public static func deferred(
        _ observableFactory: @escaping @Sendable () throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable<Element>.deferred { try observableFactory().source })
    }

    /// A sequence that owns a resource for the life of each subscription (see
    /// `Observable.using`): the resource is disposed when the subscription ends.
    ///
    /// - Parameters:
    ///   - resourceFactory: Makes the resource, once per subscription.
    ///   - primitiveSequenceFactory: Makes the sequence from the resource.
    public static func using<Resource: Disposable>(
        _ resourceFactory: @escaping @Sendable () throws -> Resource,
        primitiveSequenceFactory: @escaping @Sendable (Resource) throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(
            raw: Observable<Element>.using(resourceFactory) { try primitiveSequenceFactory($0).source })
    }
}

extension PrimitiveSequenceType where Element: RxAbstractInteger {
    /// A sequence that emits 0 after `dueTime` and completes (see `Observable.timer`).
    public static func timer(_ dueTime: RxTimeInterval, scheduler: SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(raw: Observable<Element>.timer(dueTime, scheduler: scheduler))
    }
}
