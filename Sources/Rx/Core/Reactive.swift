/// A namespace for the reactive extensions of a type, reached through `.rx`.
///
/// ```swift
/// extension Reactive where Base: Client { func execute(…) -> Observable<…> }
/// client.rx.execute(…)
/// ```
///
/// On a class, `.rx` also reaches every writable property as a `Binder`
/// (`titles.bind(to: model.rx.title)`).
@dynamicMemberLookup
public struct Reactive<Base> {
    /// The extended value.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// A binder that writes each element to the property at `keyPath` of the base, on
    /// the main thread (`MainScheduler.instance`), as RxSwift's `.rx` does:
    /// `titles.bind(to: model.rx.title)`. It holds the base weakly. To read a property,
    /// use the base itself (`model.title`); `.rx` only writes.
    public subscript<Property>(dynamicMember keyPath: ReferenceWritableKeyPath<Base, Property>) -> Binder<Property>
    where Base: AnyObject {
        Binder(base) { base, value in base[keyPath: keyPath] = value }
    }
}

extension Reactive: Sendable where Base: Sendable {}

/// A type that has reactive extensions (`.rx`).
public protocol ReactiveCompatible {
    /// The type being extended.
    associatedtype ReactiveBase

    /// Reactive extensions of the type.
    static var rx: Reactive<ReactiveBase>.Type { get set }

    /// Reactive extensions of this value.
    var rx: Reactive<ReactiveBase> { get set }
}

extension ReactiveCompatible {
    /// Reactive extensions of the type.
    public static var rx: Reactive<Self>.Type {
        get { Reactive<Self>.self }
        // Setter present so that `rx` can be used with mutating extensions.
        // swiftlint:disable:next unused_setter_value
        set {}
    }

    /// Reactive extensions of this value.
    public var rx: Reactive<Self> {
        get { Reactive(self) }
        // swiftlint:disable:next unused_setter_value
        set {}
    }
}
