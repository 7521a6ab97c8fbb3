/// A namespace for the reactive extensions of a type, reached through `.rx`.
///
/// ```swift
/// extension Reactive where Base: Client { func execute(…) -> Observable<…> }
/// client.rx.execute(…)
/// ```
@dynamicMemberLookup
public struct Reactive<Base> {
    /// The extended value.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// Reads properties of the base through `.rx`.
    public subscript<Property>(dynamicMember keyPath: ReferenceWritableKeyPath<Base, Property>) -> Property
    where Base: AnyObject {
        base[keyPath: keyPath]
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
